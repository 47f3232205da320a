import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { resealRows } from '#server/common/crypto/reseal-rows';
import { SecretBox } from '#server/common/crypto/secret-box';

/** The additional authenticated data of every sealed channel key. */
export const CHANNEL_KEY_PURPOSE = 'channels.key';

/** A channel key (one key, several lines, or a Vertex service-account JSON) as it is stored: sealed. */
export function sealChannelKey(box: SecretBox, plain: string): string {
  return box.seal(plain, CHANNEL_KEY_PURPOSE);
}

/** The key of a stored channel row; a plain value (stored before encryption at rest) is answered as it is. */
export function openChannelKey(box: SecretBox, stored: string): string {
  return box.open(stored, CHANNEL_KEY_PURPOSE);
}

/**
 * At start: seals every channel key that is plain or sealed with an old key (SECRETS_OLD_KEYS), so keys stored by
 * an earlier version and keys of a rotated-out key end up sealed with SECRETS_KEY. The routers of other processes
 * keep working meanwhile: they open either form.
 */
@Injectable()
export class ChannelKeySweep implements OnModuleInit {
  private readonly logger = new Logger('Secrets');

  constructor(
    private readonly dataSource: DataSource,
    private readonly box: SecretBox,
  ) {}

  async onModuleInit(): Promise<void> {
    const count = await resealRows(this.dataSource, this.box, {
      select: 'SELECT id, key AS value FROM channels ORDER BY id FOR UPDATE',
      update: 'UPDATE channels SET key = $2 WHERE id = $1',
      purpose: () => CHANNEL_KEY_PURPOSE,
    });
    if (count) this.logger.log(`secrets: re-encrypted ${count} channel key(s) with key ${this.box.current.id}`);
  }
}
