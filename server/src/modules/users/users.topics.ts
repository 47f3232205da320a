/**
 * Published (with the user id) whenever a user's status, role, group, credentials or existence changes, so
 * in-process caches of users (token auth on the relay path) drop the entry in every process.
 */
export const USER_CHANGED_TOPIC = 'user';
