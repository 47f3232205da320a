import type {
  CreateParams,
  CreateResult,
  DeleteParams,
  DeleteResult,
  GetListParams,
  GetListResult,
  GetOneParams,
  GetOneResult,
  RaRecord,
  UpdateParams,
  UpdateResult,
} from 'react-admin';

/**
 * What one resource knows about its API. Each list on the server pages differently (as in new-api),
 * so every resource maps react-admin's calls itself; the data provider only dispatches.
 */
export interface ResourceEndpoints<R extends RaRecord = RaRecord> {
  getList?: (params: GetListParams) => Promise<GetListResult<R>>;
  getOne?: (params: GetOneParams<R>) => Promise<GetOneResult<R>>;
  create?: (params: CreateParams) => Promise<CreateResult<R>>;
  update?: (params: UpdateParams<R>) => Promise<UpdateResult<R>>;
  delete?: (params: DeleteParams<R>) => Promise<DeleteResult<R>>;
}
