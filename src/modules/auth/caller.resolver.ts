import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Caller } from '../../common/context/request-context.js';
import { UnauthorizedError } from '../../common/errors/errors.js';
import type { TokenClaims } from '../../common/auth/token.service.js';
import { CallerCache } from '../../common/auth/caller-cache.js';

interface CallerRow {
  userId: string;
  userName: string;
  homeSiteId: string;
  isGlobalAdmin: number | boolean;
  individualId: string | null;
  individualIsAdmin: number | boolean | null;
  individualDeleted: number | boolean | null;
  siteId: string | null;
  pm: number | boolean | null;
}

/**
 * Turns verified token claims into the Caller of the request with one query: the account, its
 * individual and the acting site, kept for a few seconds by the CallerCache. A deleted
 * individual, a removed account or a site that is no longer there make the token unusable (401).
 */
@Injectable()
export class CallerResolver {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly cache: CallerCache,
  ) {}

  resolve(claims: TokenClaims): Promise<Caller> {
    return this.cache.get(claims.sub, claims.sid, () => this.load(claims));
  }

  private async load(claims: TokenClaims): Promise<Caller> {
    const row = await this.ds
      .createQueryBuilder()
      .select('u.id', 'userId')
      .addSelect('u.user_name', 'userName')
      .addSelect('u.site_id', 'homeSiteId')
      .addSelect('u.is_global_admin', 'isGlobalAdmin')
      .addSelect('i.id', 'individualId')
      .addSelect('i.is_admin', 'individualIsAdmin')
      .addSelect('i.deleted', 'individualDeleted')
      .addSelect('s.id', 'siteId')
      .addSelect('s.performance_management', 'pm')
      .from('users', 'u')
      .leftJoin('individuals', 'i', 'i.user_id = u.id')
      .leftJoin('sites', 's', 's.id = :sid', { sid: claims.sid })
      .where('u.id = :uid', { uid: claims.sub })
      .getRawOne<CallerRow>();
    if (!row || !row.siteId) throw new UnauthorizedError('The bearer token names an account or site that no longer exists');
    if (row.individualDeleted) throw new UnauthorizedError('The account of this token has been deleted');
    const isGlobalAdmin = !!Number(row.isGlobalAdmin);
    if (row.siteId !== row.homeSiteId && !isGlobalAdmin) throw new UnauthorizedError('The bearer token is not valid');
    return {
      userId: row.userId,
      userName: row.userName,
      individualId: row.individualId,
      siteId: row.siteId,
      isAdmin: isGlobalAdmin || !!Number(row.individualIsAdmin ?? 0),
      isGlobalAdmin,
      pmEnabled: !!Number(row.pm ?? 0),
    };
  }
}
