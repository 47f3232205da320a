import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { TopUpOrderEntity } from '#projections/read-models/topup-orders/topup-order.entity';

export interface TopUpPage {
  /** 0-based. */
  page: number;
  pageSize: number;
}

/** Reads the topup_orders read model: newest order first (id desc), one user's or everyone's. */
@Injectable()
export class TopUpReader {
  constructor(@InjectRepository(TopUpOrderEntity) private readonly rows: Repository<TopUpOrderEntity>) {}

  list(userId: number | null, { page, pageSize }: TopUpPage): Promise<TopUpOrderEntity[]> {
    return this.rows.find({
      where: userId === null ? {} : { userId },
      order: { id: 'DESC' },
      skip: page * pageSize,
      take: pageSize,
    });
  }
}
