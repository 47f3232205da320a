import { Controller, Get, Inject } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { AdminAuth } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { OptionsService } from '../options/options.service';
import { ProjectionLagReader } from './projection-lag.reader';
import { buildPublicStatus } from './public-status';
import { CheckDatabaseQuery } from './usecases/check-database/check-database.query';

/** Public status and content pages, the admin health check and the projection-lag view. */
@Controller('api')
export class StatusController {
  /** Boot time of this process, as new-api reports it. */
  private readonly startTime = Math.floor(Date.now() / 1000);

  constructor(
    private readonly options: OptionsService,
    private readonly queries: QueryBus,
    private readonly projections: ProjectionLagReader,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('status')
  status() {
    // Batch updates are new-api's write-behind for quota counters; the ledger has no such mode.
    return ok(buildPublicStatus(this.options, { version: this.config.VERSION, startTime: this.startTime, enableBatchUpdate: false }));
  }

  @Get('status/test')
  @AdminAuth()
  async test() {
    await this.queries.execute(new CheckDatabaseQuery());
    return ok(undefined, 'Server is running');
  }

  @Get('status/projections')
  @AdminAuth()
  async projectionLag() {
    const report = await this.projections.report();
    return ok({
      head_position: report.head,
      leader_active: report.leaderPid !== null,
      projections: report.projections.map((projection) => ({
        name: projection.name,
        checkpoint: projection.checkpoint,
        head_position: report.head,
        lag: projection.behind,
        seconds_behind: projection.secondsBehind,
        updated_at: projection.updatedAt,
        last_error: projection.lastError,
        last_error_at: projection.lastErrorAt,
      })),
    });
  }

  @Get('notice')
  notice() {
    return ok(this.options.get('Notice'));
  }

  @Get('about')
  about() {
    return ok(this.options.get('About'));
  }

  @Get('home_page_content')
  homePageContent() {
    return ok(this.options.get('HomePageContent'));
  }
}
