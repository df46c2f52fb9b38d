import type { IpamViews } from '@ipledger/domain';
import type {
  AllocationView,
  BlockView,
  ClaimView,
  IpHistoryItem,
  IpSetView,
  NodeView,
  PoolView,
  ReservationView,
} from '@ipledger/projections';
import type { CheckReportDto } from '../check/dto/check-report.dto';
import type { EventPageDto } from '../events/dto/event.dto';
import type { NodePoolsDto } from '../nodes/dto/node-pools.dto';

/** The read models' shapes the API answers with: the compiler checks each against what the contract (IpamViews) promises. */
export interface ApiViews extends IpamViews {
  allocation: AllocationView;
  claim: ClaimView;
  pool: PoolView;
  node: NodeView;
  block: BlockView;
  reservation: ReservationView;
  ipSet: IpSetView;
  nodePools: NodePoolsDto;
  ipHistoryItem: IpHistoryItem;
  poolHistory: EventPageDto;
  checkReport: CheckReportDto;
}
