import { describeBulkEquivalence } from '../../../test/bulk-equivalence';
import { StatementProjection } from './statement.projection';

describeBulkEquivalence(new StatementProjection(), ['statement_lines']);
