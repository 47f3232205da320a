// The envelope lives in common/http so modules can answer relay routes (token authentication) without the relay.
export * from '../common/http/relay-error';
