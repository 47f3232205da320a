import RedeemIcon from '@mui/icons-material/Redeem';
import { RedemptionList } from './RedemptionList';

/** The `redemption` resource: one screen, /redemption; creating and editing happen in its side drawer. */
export const redemptions = {
  list: RedemptionList,
  icon: RedeemIcon,
};

export default redemptions;
