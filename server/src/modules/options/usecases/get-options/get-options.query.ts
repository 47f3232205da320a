/** GET /api/option/: every option but the secrets. */
export class GetOptionsQuery {}
