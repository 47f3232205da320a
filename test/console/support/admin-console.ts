import { ApiSession } from './api-client';
import { launchConsoleBrowser, type ConsoleBrowser } from './browser';
import { dismissDefaultPasswordWarning, loginThroughUi } from './console-actions';
import { startConsoleTarget, type ConsoleTarget } from './target';

export interface AdminConsole {
  target: ConsoleTarget;
  /** Root's API session, for setting up data the screen then shows. */
  api: ApiSession;
  /** A browser logged in as root through the login page, the default-password warning dismissed. */
  admin: ConsoleBrowser;
  close(): Promise<void>;
}

/** A fresh app serving the console, with `seed` run through root's API before the browser logs in. */
export const openAdminConsole = async (seed: (api: ApiSession) => Promise<void> = async () => {}): Promise<AdminConsole> => {
  const target = await startConsoleTarget();
  const api = await ApiSession.login(target.baseUrl, target.root.username, target.root.password);
  await seed(api);
  const admin = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
  await loginThroughUi(admin.page, target.root.username, target.root.password);
  await dismissDefaultPasswordWarning(admin.page);
  return {
    target,
    api,
    admin,
    async close() {
      await admin.close();
      await target.stop();
    },
  };
};
