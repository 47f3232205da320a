import { resolveGeneratedSecret } from '../../config/session-secret';
import { dataKey, SecretBox, SecretKeyError } from './secret-box';

/** Where the generated data key is kept, inside DATA_DIR. */
export const SECRET_KEY_FILE = 'secret-key';

export interface SecretKeySettings {
  DATA_DIR: string;
  SECRETS_KEY?: string;
  SECRETS_OLD_KEYS?: string;
}

/**
 * The SecretBox of this installation: SECRETS_KEY, else the key generated once into DATA_DIR/secret-key (read on
 * every later start, so a restart opens what the last one sealed), plus SECRETS_OLD_KEYS (comma-separated), which
 * only open values sealed before a rotation. `describe` is one log line saying where the key came from; it never
 * holds a key, only key ids.
 */
export function resolveSecretBox(settings: SecretKeySettings): { box: SecretBox; describe: string } {
  let current;
  let source: string;
  if (settings.SECRETS_KEY?.trim()) {
    current = dataKey(settings.SECRETS_KEY, 'SECRETS_KEY');
    source = 'SECRETS_KEY';
  } else {
    const { secret, file, created } = resolveGeneratedSecret(settings.DATA_DIR, SECRET_KEY_FILE, 'SECRETS_KEY');
    current = dataKey(secret, file);
    source = `${created ? 'generated into' : 'read from'} ${file} (SECRETS_KEY is unset)`;
  }
  const old = (settings.SECRETS_OLD_KEYS ?? '')
    .split(',')
    .map((text) => text.trim())
    .filter(Boolean)
    .map((text, index) => dataKey(text, `SECRETS_OLD_KEYS entry ${index + 1}`));
  if (old.some((key) => key.id === current.id))
    throw new SecretKeyError('SECRETS_OLD_KEYS holds the current key: list only the keys it replaced');
  const box = new SecretBox(current, old);
  const oldIds = old.map((key) => key.id).join(', ');
  return { box, describe: `secret key ${current.id}: ${source}${old.length ? `; old keys for opening only: ${oldIds}` : ''}` };
}
