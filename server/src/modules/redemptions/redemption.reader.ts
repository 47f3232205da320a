import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, type Repository } from 'typeorm';
import { RedemptionEntity } from '#projections/read-models/redemptions/redemption.entity';

export const REDEMPTIONS_PER_PAGE = 10;

/** `%` and `_` typed into a search box are characters to find, not wildcards. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/** Reads the redemptions read model; soft-deleted codes are invisible to every read, as in new-api. */
@Injectable()
export class RedemptionReader {
  constructor(@InjectRepository(RedemptionEntity) private readonly rows: Repository<RedemptionEntity>) {}

  list(page: number): Promise<RedemptionEntity[]> {
    return this.rows.find({
      where: { deletedAt: IsNull() },
      order: { id: 'DESC' },
      skip: page * REDEMPTIONS_PER_PAGE,
      take: REDEMPTIONS_PER_PAGE,
    });
  }

  /** `id = keyword OR name LIKE 'keyword%'` (a prefix match), newest first, unpaged. */
  async search(keyword: string): Promise<RedemptionEntity[]> {
    // Postgres text cannot hold NUL, so no name starts with one (and the driver would refuse the parameter).
    if (keyword.includes('\u0000')) return [];
    const id = /^\d{1,10}$/.test(keyword) && Number(keyword) <= 2147483647 ? Number(keyword) : -1;
    return this.rows
      .createQueryBuilder('r')
      .where('r.deleted_at IS NULL')
      .andWhere("(r.id = :id OR r.name LIKE :prefix ESCAPE '\\')", { id, prefix: `${escapeLike(keyword)}%` })
      .orderBy('r.id', 'DESC')
      .getMany();
  }

  find(id: number): Promise<RedemptionEntity | null> {
    return this.rows.findOne({ where: { id, deletedAt: IsNull() } });
  }

  /** By key, deleted codes included (the redeem decides on the stream, not on this row). */
  findByKey(key: string): Promise<RedemptionEntity | null> {
    return this.rows.findOne({ where: { key } });
  }
}
