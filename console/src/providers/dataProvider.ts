/* eslint-disable @typescript-eslint/no-explicit-any -- react-admin's DataProvider methods are generic over the record type; the endpoints answer RaRecord, so each result is cast once here. */
import type { DataProvider, RaRecord } from 'react-admin';
import type { Redemption, UserManageAction } from '../lib/types';
import { logEndpoints } from './endpoints/logEndpoints';
import { channelEndpoints } from './endpoints/channelEndpoints';
import { redemptionEndpoints, setRedemptionStatus } from './endpoints/redemptionEndpoints';
import { setTokenStatus, tokenEndpoints, type Token } from './endpoints/tokenEndpoints';
import { manageUser, userEndpoints } from './endpoints/userEndpoints';
import type { ResourceEndpoints } from './endpoints/types';
import { statementEndpoints } from '../pages/statement/statementEndpoints';
import { topupOrderEndpoints } from '../pages/topup/topupOrderEndpoints';
import { midjourneyEndpoints } from '../pages/midjourney/midjourneyEndpoints';
import { taskEndpoints } from '../pages/task/taskEndpoints';

/** One entry per react-admin resource; channels, tokens and logs join here later. */
const endpointsByResource: Record<string, ResourceEndpoints<any>> = {
  user: userEndpoints,
  redemption: redemptionEndpoints,
  log: logEndpoints,
  statement: statementEndpoints,
  topup_order: topupOrderEndpoints,
  midjourney: midjourneyEndpoints,
  task: taskEndpoints,
  token: tokenEndpoints,
  channel: channelEndpoints,
};

const endpointsFor = (resource: string): ResourceEndpoints => {
  const endpoints = endpointsByResource[resource];
  if (!endpoints) throw new Error(`No API endpoints are known for the resource "${resource}"`);
  return endpoints;
};

const unsupported = (resource: string, method: string): never => {
  throw new Error(`The resource "${resource}" does not support ${method}`);
};

export interface ConsoleDataProvider extends DataProvider {
  manageUser: (id: number, action: UserManageAction) => ReturnType<typeof manageUser>;
  setRedemptionStatus: (id: number, status: number) => Promise<Redemption>;
  setTokenStatus: (id: number, status: number) => Promise<Token>;
}

export const dataProvider: ConsoleDataProvider = {
  getList: (resource, params) => (endpointsFor(resource).getList ?? unsupported(resource, 'getList'))(params) as any,
  getOne: (resource, params) => (endpointsFor(resource).getOne ?? unsupported(resource, 'getOne'))(params) as any,
  create: (resource, params) => (endpointsFor(resource).create ?? unsupported(resource, 'create'))(params) as any,
  update: (resource, params) => (endpointsFor(resource).update ?? unsupported(resource, 'update'))(params) as any,
  delete: (resource, params) => (endpointsFor(resource).delete ?? unsupported(resource, 'delete'))(params) as any,

  async getMany(resource, { ids }) {
    const getOne = endpointsFor(resource).getOne ?? unsupported(resource, 'getMany');
    const records: RaRecord[] = [];
    for (const id of ids) records.push((await getOne({ id })).data);
    return { data: records as any };
  },

  getManyReference: (resource) => unsupported(resource, 'getManyReference'),

  async updateMany(resource, { ids, data }) {
    const update = endpointsFor(resource).update ?? unsupported(resource, 'updateMany');
    for (const id of ids) await update({ id, data, previousData: { id } });
    return { data: ids };
  },

  async deleteMany(resource, { ids }) {
    const remove = endpointsFor(resource).delete ?? unsupported(resource, 'deleteMany');
    for (const id of ids) await remove({ id });
    return { data: ids };
  },

  manageUser: (id, action) => manageUser(id, action),
  setRedemptionStatus: (id, status) => setRedemptionStatus(id, status),
  setTokenStatus: (id, status) => setTokenStatus(id, status),
};
