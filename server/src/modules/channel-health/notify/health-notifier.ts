import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { MailService } from '../../mail/mail.service';
import { UserEntity } from '../../users/user.entity';
import type { HealthDecision } from '../decider/channel-health.decider';

const ROOT_ROLE = 100;

/** new-api's mail at the end of a manual test of every channel. */
export const TEST_RUN_FINISHED_SUBJECT = '通道测试完成';
export const TEST_RUN_FINISHED_BODY = '通道测试完成，如果没有收到禁用通知，说明所有通道都正常';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[character] ?? character);
}

/**
 * Mails the root user about an automatic disable or enable, and the end of a manual test-all run, with
 * new-api's subjects. Best effort and never blocking: the decision is already in the ledger; no SMTP or no root
 * email only logs a line.
 */
@Injectable()
export class HealthNotifier {
  private readonly logger = new Logger('ChannelHealth');

  constructor(
    private readonly mail: MailService,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
  ) {}

  notify(channel: { id: number; name: string }, decision: HealthDecision): void {
    if (decision.kind === 'none') return;
    const verb = decision.kind === 'disable' ? '禁用' : '启用';
    const subject = `通道「${channel.name}」（#${channel.id}）已被${verb}`;
    const body = decision.kind === 'disable' ? `${subject}，原因：${decision.reason}` : subject;
    this.logger.log(`${subject} (${decision.reasonCode}: ${decision.reason})`);
    void this.send(subject, body).catch((error: unknown) =>
      this.logger.warn(`channel notice not mailed: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  /**
   * The end of a manual test-all run (new-api's subject "通道测试完成"). Resolves once the mail is queued;
   * without SMTP or a root email it only logs, as the other notices do.
   */
  async testRunFinished(): Promise<void> {
    this.logger.log('channel test run finished');
    try {
      await this.send(TEST_RUN_FINISHED_SUBJECT, TEST_RUN_FINISHED_BODY);
    } catch (error) {
      this.logger.warn(`channel test notice not mailed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async send(subject: string, body: string): Promise<void> {
    const root = await this.users.findOne({ where: { role: ROOT_ROLE }, order: { id: 'ASC' } });
    if (!root?.email) return;
    await this.mail.enqueue({ to: root.email, subject, html: `<p>${escapeHtml(body)}</p>` });
  }
}
