/** POST /api/option/rest_model_ratio: ModelRatio back to the built-in table (not ModelPrice or CompletionRatio). */
export class ResetModelRatioCommand {}
