import { ApiSession } from './support/api-client';
import { launchConsoleBrowser, type ConsoleBrowser } from './support/browser';
import { dismissDefaultPasswordWarning, expectText, loginThroughUi } from './support/console-actions';
import { startConsoleTarget, type ConsoleTarget } from './support/target';

jest.setTimeout(60_000);

/** A stand-in for Cloudflare's script: renders the widget as a frame on Cloudflare's host, as the real one does. */
const TURNSTILE_STUB = `window.turnstile = {
  render(element) {
    const frame = document.createElement('iframe');
    frame.src = 'https://challenges.cloudflare.com/widget';
    frame.dataset.testid = 'turnstile-frame';
    element.appendChild(frame);
    return 'widget-1';
  },
  reset() {},
  remove() {},
};`;

type Page = ConsoleBrowser['page'];

/** The browser globals the recorder touches (the test project has no DOM library). */
interface RecorderGlobals {
  cspViolations: string[];
  document: { addEventListener(type: string, listener: (event: { violatedDirective: string; blockedURI: string }) => void): void };
}

/** Records every CSP violation of the pages the browser opens; the returned function reads the current page's. */
const recordViolations = async (browser: ConsoleBrowser): Promise<() => Promise<string[]>> => {
  await browser.context.addInitScript(() => {
    const globals = globalThis as unknown as RecorderGlobals;
    const seen: string[] = [];
    globals.cspViolations = seen;
    globals.document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  return () => browser.page.evaluate(() => (globalThis as unknown as RecorderGlobals).cspViolations);
};

const expectNoViolation = async (page: Page, violations: () => Promise<string[]>) => {
  expect({ path: new URL(page.url()).pathname, violations: await violations() }).toEqual({
    path: new URL(page.url()).pathname,
    violations: [],
  });
};

/** The console under its Content-Security-Policy: no page or widget it shows is blocked. */
describe('console content security policy', () => {
  let target: ConsoleTarget;
  let root: ApiSession;
  let browser: ConsoleBrowser | undefined;

  beforeAll(async () => {
    target = await startConsoleTarget();
    root = await ApiSession.login(target.baseUrl, target.root.username, target.root.password);
  });
  afterEach(async () => {
    await browser?.close();
    browser = undefined;
  });
  afterAll(async () => {
    await target?.stop();
  });

  it('renders the home page and the signed-in console with no violation', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US' });
    const violations = await recordViolations(browser);
    const { page } = browser;
    await page.goto('/');
    await expectText(page, 'Sign in');
    await expectNoViolation(page, violations);
    await loginThroughUi(page, target.root.username, target.root.password, 'en');
    await dismissDefaultPasswordWarning(page);
    await page.goto('/setting?tab=personal');
    await expectText(page, 'Personal settings');
    await expectNoViolation(page, violations);
  });

  it('loads the Turnstile script and its frame on the login and register pages with no violation', async () => {
    await root.must('PUT', '/api/option/', { key: 'TurnstileSiteKey', value: 'site-key' });
    await root.must('PUT', '/api/option/', { key: 'TurnstileSecretKey', value: 'secret-key' });
    await root.must('PUT', '/api/option/', { key: 'TurnstileCheckEnabled', value: 'true' });
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US' });
    const violations = await recordViolations(browser);
    const { context, page } = browser;
    await context.route('https://challenges.cloudflare.com/turnstile/**', (route) =>
      route.fulfill({ contentType: 'text/javascript', body: TURNSTILE_STUB }),
    );
    await context.route('https://challenges.cloudflare.com/widget', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<p>challenge</p>' }),
    );
    for (const path of ['/login', '/register']) {
      await page.goto(path);
      await expectText(page.frameLocator('[data-testid="turnstile-frame"]').locator('body'), 'challenge');
      await expectNoViolation(page, violations);
    }
  });
});
