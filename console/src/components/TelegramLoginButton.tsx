import { useEffect, useRef } from 'react';

export interface TelegramUser {
  id: number;
  first_name?: string;
  last_name?: string;
  username?: string;
  photo_url?: string;
  auth_date: number;
  hash: string;
  [field: string]: unknown;
}

type TelegramLoginButtonProps = { botName: string } & (
  | { onAuth: (user: TelegramUser) => void; authUrl?: never }
  | { authUrl: string; onAuth?: never }
);

declare global {
  interface Window {
    [callback: `tollgateTelegramAuth${string}`]: ((user: TelegramUser) => void) | undefined;
  }
}

let widgetCount = 0;

/**
 * The Telegram login widget. With `onAuth` the widget hands the signed fields to the page (login);
 * with `authUrl` Telegram sends the browser there (binding: the server then redirects to /setting).
 */
export const TelegramLoginButton = ({ botName, onAuth, authUrl }: TelegramLoginButtonProps) => {
  const container = useRef<HTMLDivElement>(null);
  const onAuthRef = useRef(onAuth);
  onAuthRef.current = onAuth;

  useEffect(() => {
    const element = container.current;
    if (!element || !botName) return undefined;
    const callbackName = `tollgateTelegramAuth${++widgetCount}` as const;
    const script = document.createElement('script');
    script.src = 'https://telegram.org/js/telegram-widget.js?22';
    script.async = true;
    script.setAttribute('data-telegram-login', botName);
    script.setAttribute('data-size', 'large');
    script.setAttribute('data-request-access', 'write');
    if (authUrl) {
      script.setAttribute('data-auth-url', new URL(authUrl, window.location.origin).toString());
    } else {
      window[callbackName] = (user) => onAuthRef.current?.(user);
      script.setAttribute('data-onauth', `${callbackName}(user)`);
    }
    element.appendChild(script);
    return () => {
      delete window[callbackName];
      element.replaceChildren();
    };
  }, [botName, authUrl]);

  return <div ref={container} data-testid="telegram-login" />;
};
