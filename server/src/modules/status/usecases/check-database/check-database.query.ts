/** GET /api/status/test: is the database answering? */
export class CheckDatabaseQuery {}
