/** The tokens module's public entry: what the relay uses (token authentication, the token reader, the key syntax). */
export { type AuthenticateOptions, type RelayCaller, TokenAuthenticator, TokenAuthMessages } from './token-auth/token-authenticator';
export { readRelayKey } from './token-key';
export { TokenAuthError } from './token.errors';
export { TokenReader } from './token.reader';
export { TokensModule } from './tokens.module';
