/** PUT /api/option/: one key, its value already turned into a string (numbers and booleans coerced). */
export class UpdateOptionCommand {
  constructor(
    readonly key: string,
    readonly value: string,
  ) {}
}
