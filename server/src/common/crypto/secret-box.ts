import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Every sealed value starts with this; anything else is a legacy plain value (stored before encryption at rest). */
export const SEALED_PREFIX = 'enc:v1:';

/** The shortest key text accepted: the generated key is 64 hex characters (32 random bytes). */
export const MIN_KEY_LENGTH = 32;

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** One data key: its AES-256 key (SHA-256 of the key text) and a short id that names it without revealing it. */
export interface DataKey {
  id: string;
  material: Buffer;
}

export class SecretKeyError extends Error {
  readonly code = 'secret_key_invalid';
}

/** A stored value sealed with a key this process does not have (or tampered with): never answered as plain text. */
export class SecretUnreadableError extends Error {
  readonly code = 'secret_unreadable';
}

/** The data key for a key text (SECRETS_KEY, one of SECRETS_OLD_KEYS, or the generated DATA_DIR/secret-key). */
export function dataKey(text: string, name: string): DataKey {
  const trimmed = text.trim();
  if (trimmed.length < MIN_KEY_LENGTH) throw new SecretKeyError(`${name} must be at least ${MIN_KEY_LENGTH} characters`);
  return {
    id: createHash('sha256').update(`tollgate-secret-key-id:${trimmed}`).digest('hex').slice(0, 12),
    material: createHash('sha256').update(trimmed).digest(),
  };
}

const b64 = (buffer: Buffer) => buffer.toString('base64url');

/**
 * Encryption at rest (AES-256-GCM) of the secrets kept in configuration tables: channel keys and the secret options.
 * A sealed value is `enc:v1:<key id>:<iv>:<tag>:<ciphertext>` (base64url), sealed with the current key and opened
 * with whichever key its id names (the current one or one of the old ones kept for rotation). `purpose` is the
 * additional authenticated data (`channels.key`, `options.SMTPToken` …): a value copied into another column or
 * option does not open there. A value without the prefix is a legacy plain value: `open` answers it as it is, and
 * `needsSealing` tells the start-up pass (SecretsSweep) to seal it.
 */
export class SecretBox {
  private readonly byId: Map<string, DataKey>;

  constructor(
    readonly current: DataKey,
    old: readonly DataKey[] = [],
  ) {
    this.byId = new Map([...old, current].map((key) => [key.id, key]));
  }

  seal(plain: string, purpose: string): string {
    if (plain === '') return '';
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.material, iv);
    cipher.setAAD(Buffer.from(purpose, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${SEALED_PREFIX}${this.current.id}:${b64(iv)}:${b64(cipher.getAuthTag())}:${b64(body)}`;
  }

  open(stored: string, purpose: string): string {
    if (!isSealed(stored)) return stored;
    const [keyId, iv, tag, body] = stored.slice(SEALED_PREFIX.length).split(':');
    const key = this.byId.get(keyId);
    if (!key)
      throw new SecretUnreadableError(
        `a ${purpose} value is sealed with key ${keyId}, which is neither SECRETS_KEY nor in SECRETS_OLD_KEYS`,
      );
    try {
      // The tag's length is fixed: a shortened tag would be easier to forge.
      const decipher = createDecipheriv('aes-256-gcm', key.material, Buffer.from(iv ?? '', 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(purpose, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag ?? '', 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body ?? '', 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadableError(`a ${purpose} value sealed with key ${keyId} does not open (damaged, or sealed for another column)`);
    }
  }

  /** True for a plain legacy value and for a value sealed with an old key: the start-up pass seals it again. */
  needsSealing(stored: string): boolean {
    if (stored === '') return false;
    return !isSealed(stored) || !stored.startsWith(`${SEALED_PREFIX}${this.current.id}:`);
  }
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(SEALED_PREFIX);
}
