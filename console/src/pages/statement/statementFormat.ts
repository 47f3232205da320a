import { quotaPerUnit, renderNumber } from '../../lib/quota';
import type { PublicStatus } from '../../lib/types';
import type { StatementLine } from './statementLine';

/**
 * An amount of a statement line, exact enough to reconcile: in currency with up to six decimals (1 unit is $0.000002
 * at the default rate), trailing zeros trimmed to two; in units, the plain integer.
 */
export const renderAmount = (quota: number, status: PublicStatus): string => {
  const sign = quota < 0 ? '-' : '';
  const magnitude = Math.abs(quota);
  if (status.display_in_currency === false) return `${sign}${magnitude < 1e4 ? magnitude : renderNumber(magnitude)}`;
  const fixed = (magnitude / quotaPerUnit(status)).toFixed(6).replace(/(\.\d\d\d*?)0+$/, '$1');
  return `${sign}$${fixed}`;
};

/** A change with its sign: `+$1.00`, `-$0.000500`, `0`. */
export const renderDelta = (delta: number, status: PublicStatus): string =>
  delta > 0 ? `+${renderAmount(delta, status)}` : renderAmount(delta, status);

const pad = (value: number) => String(value).padStart(2, '0');

/** Seconds since the epoch as local `YYYY-MM-DD HH:mm:ss`. */
export const renderTimestamp = (seconds: number): string => {
  const date = new Date(seconds * 1000);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
};

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** Who made the change, as the viewer may know it (the owner's own statement hides which admin). */
export const renderActor = (line: StatementLine, ownerId: number | undefined, own: boolean, translate: Translate): string => {
  const { actor } = line;
  if (actor.type === 'system') return translate('app.statement.actors.system');
  if (actor.id !== null && actor.id === ownerId) return translate(own ? 'app.statement.actors.you' : 'app.statement.actors.owner');
  if ((actor.role ?? 0) >= 10) {
    return actor.id === null ? translate('app.statement.actors.admin') : translate('app.statement.actors.admin_id', { id: actor.id });
  }
  return actor.id === null ? translate('app.statement.actors.owner') : translate('app.statement.actors.user_id', { id: actor.id });
};

/** The line's reference in words: the code, the order, the token and model, the invitee, an admin edit's before and after. */
export const renderRef = (line: StatementLine, status: PublicStatus, translate: Translate): string => {
  const { ref } = line;
  const parts: string[] = [];
  if (ref.grant !== undefined) parts.push(translate(`app.statement.grants.${ref.grant}`, { _: String(ref.grant) }));
  if (ref.code_id !== undefined) parts.push(translate('app.statement.refs.code', { id: ref.code_id }));
  if (ref.trade_no !== undefined) parts.push(translate('app.statement.refs.trade', { id: ref.trade_no }));
  if (ref.token_name !== undefined && ref.token_name !== '') parts.push(translate('app.statement.refs.token', { name: ref.token_name }));
  if (ref.model !== undefined && ref.model !== '') parts.push(translate('app.statement.refs.model', { model: ref.model }));
  if (ref.invitee_id !== undefined) {
    parts.push(translate('app.statement.refs.invitee', { id: ref.invitee_id, amount: renderAmount(Number(ref.aff_amount ?? 0), status) }));
  }
  if (ref.before !== undefined && ref.after !== undefined) {
    parts.push(
      translate('app.statement.refs.adjusted', {
        before: renderAmount(Number(ref.before), status),
        after: renderAmount(Number(ref.after), status),
      }),
    );
  }
  return parts.join(' · ');
};
