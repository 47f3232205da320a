/** Largest request body any route accepts (new-api's relay takes 32 MiB uploads); larger answers 413. */
export const HTTP_BODY_LIMIT = 32 * 1024 * 1024;
