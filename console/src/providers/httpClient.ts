import { HttpError } from 'react-admin';
import { clearStoredUser, getStoredUser } from '../lib/storage';
import type { ApiEnvelope } from '../lib/types';
import { translate } from './i18nProvider';

export type QueryValue = string | number | boolean | null | undefined;

export interface ApiRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  query?: Record<string, QueryValue>;
  body?: unknown;
}

/** An error whose message is ready to show; `severity` tells the toast which colour to use. */
export class ApiError extends HttpError {
  constructor(
    message: string,
    status: number,
    body: unknown,
    readonly severity: 'error' | 'info' = 'error',
  ) {
    super(message, status, body);
    this.name = 'ApiError';
  }
}

export const EXPIRED_LOGIN_PATH = '/login?expired=true';

let redirectingToLogin = false;

/** Central handling of HTTP 401 (the only status that means "logged out"): forget the local user and go to login. */
const redirectToExpiredLogin = () => {
  clearStoredUser();
  if (redirectingToLogin) return;
  redirectingToLogin = true;
  window.location.assign(EXPIRED_LOGIN_PATH);
};

export const buildUrl = (path: string, query?: Record<string, QueryValue>): string => {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null) params.append(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}${path.includes('?') ? '&' : '?'}${search}` : path;
};

const readBody = async (response: Response): Promise<unknown> => {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

const messageOf = (body: unknown, fallback: string): string => {
  if (body && typeof body === 'object') {
    const record = body as { message?: unknown; error?: { message?: unknown } };
    if (typeof record.message === 'string' && record.message) return record.message;
    if (typeof record.error?.message === 'string') return record.error.message;
  }
  if (typeof body === 'string' && body.trim() && body.length < 300) return body.trim();
  return fallback;
};

const transportError = (status: number, body: unknown, statusText: string): ApiError => {
  switch (status) {
    case 429:
      return new ApiError(translate('app.errors.too_many_requests'), status, body);
    case 500:
      return new ApiError(translate('app.errors.server_error'), status, body);
    case 405:
      return new ApiError(translate('app.errors.demo_only'), status, body, 'info');
    default:
      return new ApiError(translate('app.errors.generic', { message: messageOf(body, `${status} ${statusText}`.trim()) }), status, body);
  }
};

/**
 * Calls the console API and returns the whole answer (some answers carry fields beside `data`, such as
 * `time` or `balance`). Every call is JSON, carries the session cookie and the `New-API-User` header.
 * `success: false` becomes an ApiError holding the server's own message.
 */
export const apiFetch = async <T = unknown>(path: string, request: ApiRequest = {}): Promise<ApiEnvelope<T>> => {
  const headers = new Headers({ Accept: 'application/json' });
  const user = getStoredUser();
  if (user) headers.set('New-API-User', String(user.id));
  if (request.body !== undefined) headers.set('Content-Type', 'application/json');

  let response: Response;
  try {
    response = await fetch(buildUrl(path, request.query), {
      method: request.method ?? 'GET',
      headers,
      credentials: 'include',
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new ApiError(translate('app.errors.generic', { message }), 0, undefined);
  }

  const body = await readBody(response);
  if (response.status === 401) {
    redirectToExpiredLogin();
    throw new ApiError(translate('app.errors.expired'), 401, body);
  }
  if (!response.ok) throw transportError(response.status, body, response.statusText);
  if (!body || typeof body !== 'object') {
    throw new ApiError(translate('app.errors.generic', { message: messageOf(body, 'empty answer') }), response.status, body);
  }
  const envelope = body as ApiEnvelope<T>;
  if (envelope.success === false) {
    throw new ApiError(envelope.message || translate('ra.notification.http_error'), response.status, body);
  }
  return envelope;
};

/** Same as apiFetch, returning only `data`. */
export const apiRequest = async <T = unknown>(path: string, request: ApiRequest = {}): Promise<T> =>
  (await apiFetch<T>(path, request)).data as T;

export const errorMessage = (error: unknown): string => {
  if (error instanceof Error) return error.message;
  return translate('app.errors.generic', { message: String(error) });
};
