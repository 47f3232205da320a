import { lazy, Suspense } from 'react';
import { QueryClient } from '@tanstack/react-query';
import { Admin, CustomRoutes, Resource } from 'react-admin';
import { BrowserRouter, Route } from 'react-router-dom';
import { ConsoleLayout } from './layout/ConsoleLayout';
import { darkTheme, lightTheme } from './layout/theme';
import { AboutPage } from './pages/about/AboutPage';
import { Chat2LinkPage } from './pages/chat/Chat2LinkPage';
import { ChatPage } from './pages/chat/ChatPage';
import { GitHubOAuthCallbackPage } from './pages/GitHubOAuthCallbackPage';
import { HomePage } from './pages/HomePage';
import { LoginPage } from './pages/LoginPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { PasswordResetConfirmPage } from './pages/PasswordResetConfirmPage';
import { PasswordResetRequestPage } from './pages/PasswordResetRequestPage';
import { PlaceholderPage } from './pages/PlaceholderPage';
import { PlaygroundPage } from './pages/playground/PlaygroundPage';
import { PricingPage } from './pages/pricing/PricingPage';
import { RegisterPage } from './pages/RegisterPage';
import { SettingsPage } from './pages/SettingsPage';
import { StatementPage } from './pages/statement/StatementPage';
import { MidjourneyPage } from './pages/midjourney/MidjourneyPage';
import { TaskPage } from './pages/task/TaskPage';
import { UserStatementPage } from './pages/statement/UserStatementPage';
import { TopUpPage } from './pages/topup/TopUpPage';
import { TopUpOrdersAdminPage } from './pages/topup/TopUpOrdersAdminPage';
import { authProvider } from './providers/authProvider';
import { dataProvider } from './providers/dataProvider';
import { i18nProvider } from './providers/i18nProvider';
import { createConsoleStore } from './providers/store';
import { logs } from './resources/logs';
import { channels } from './resources/channels';
import { ChannelEditor } from './resources/channels/ChannelEditor';
import { redemptions } from './resources/redemptions';
import { tokens } from './resources/tokens';
import { users, UserSelfEdit } from './resources/users';
import { UserCreate } from './resources/users/UserCreate';
import { UserEdit } from './resources/users/UserEdit';

const store = createConsoleStore();

/** The dashboard and its chart library load when /detail is first opened, not with the rest of the console. */
const DetailPage = lazy(() => import('./pages/detail/DetailPage').then((module) => ({ default: module.DetailPage })));

/** Screens of later releases: [path, menu label key, public?]. */
const LATER_SCREENS: Array<[string, string, boolean]> = [];

/**
 * No refetch when the window regains focus: a refetched record would reset an edit form under the admin's hands
 * (react-query's default refetches every stale query on focus).
 */
const queryClient = new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false } } });

/** The server serves this app at / (with a fallback to index.html) and the API at /api on the same origin. */
export const App = () => (
  <BrowserRouter>
    <Admin
      queryClient={queryClient}
      title="Tollgate"
      dataProvider={dataProvider}
      authProvider={authProvider}
      i18nProvider={i18nProvider}
      store={store}
      layout={ConsoleLayout}
      loginPage={LoginPage}
      catchAll={NotFoundPage}
      theme={lightTheme}
      darkTheme={darkTheme}
      defaultTheme="light"
      disableTelemetry
    >
      <CustomRoutes noLayout>
        <Route path="/register" element={<RegisterPage />} />
        <Route path="/reset" element={<PasswordResetRequestPage />} />
        <Route path="/user/reset" element={<PasswordResetConfirmPage />} />
        <Route path="/oauth/github" element={<GitHubOAuthCallbackPage />} />
      </CustomRoutes>
      <CustomRoutes>
        <Route path="/" element={<HomePage />} />
        <Route path="/setting" element={<SettingsPage />} />
        <Route path="/user/edit" element={<UserSelfEdit />} />
        <Route path="/pricing" element={<PricingPage />} />
        <Route path="/topup" element={<TopUpPage />} />
        <Route path="/topup/orders" element={<TopUpOrdersAdminPage />} />
        <Route path="/about" element={<AboutPage />} />
        <Route path="/chat" element={<ChatPage />} />
        <Route path="/chat2link" element={<Chat2LinkPage />} />
        <Route path="/playground" element={<PlaygroundPage />} />
        <Route path="/statement" element={<StatementPage />} />
        <Route path="/midjourney" element={<MidjourneyPage />} />
        <Route path="/task" element={<TaskPage />} />
        <Route
          path="/detail"
          element={
            <Suspense fallback={null}>
              <DetailPage />
            </Suspense>
          }
        />
        {LATER_SCREENS.map(([path, titleKey, isPublic]) => (
          <Route key={path} path={path} element={<PlaceholderPage titleKey={titleKey} isPublic={isPublic} />} />
        ))}
      </CustomRoutes>
      <Resource name="user" {...users}>
        <Route path="edit/:id" element={<UserEdit />} />
        <Route path="add" element={<UserCreate />} />
        <Route path="statement/:id" element={<UserStatementPage />} />
      </Resource>
      <Resource name="redemption" {...redemptions} />
      <Resource name="log" {...logs} />
      <Resource name="token" {...tokens} />
      <Resource name="channel" {...channels}>
        <Route path="add" element={<ChannelEditor key="add" />} />
        <Route path="edit/:id" element={<ChannelEditor key="edit" />} />
      </Resource>
    </Admin>
  </BrowserRouter>
);
