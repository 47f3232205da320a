/** The console envelope `{success, message, data?}`, with HTTP 200 even for most refusals, as new-api answers. */
export interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
}

export function ok<T>(data?: T, message = ''): Envelope<T> {
  return data === undefined ? { success: true, message } : { success: true, message, data };
}

export function fail(message: string): Envelope<never> {
  return { success: false, message };
}
