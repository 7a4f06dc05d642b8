import { ArgumentMetadata, Injectable, Param, PipeTransform } from '@nestjs/common';
import { ValidationError } from '../../common/errors/errors.js';
import { isGuid } from './wire.js';

/** Path guid: a malformed one is a 400 naming the parameter; the value is lower-cased. */
@Injectable()
export class GuidPipe implements PipeTransform<string, string> {
  transform(value: string, meta: ArgumentMetadata): string {
    if (!isGuid(value)) throw new ValidationError([{ field: meta.data ?? 'id', message: `${meta.data ?? 'id'} must be a UUID` }]);
    return value.toLowerCase();
  }
}

/** Path int32 id. */
@Injectable()
export class IntIdPipe implements PipeTransform<string, number> {
  transform(value: string, meta: ArgumentMetadata): number {
    const n = Number(value);
    if (!/^-?\d+$/.test(value) || !Number.isInteger(n) || n > 2147483647 || n < -2147483648) {
      throw new ValidationError([{ field: meta.data ?? 'id', message: `${meta.data ?? 'id'} must be a whole number (int32)` }]);
    }
    return n;
  }
}

/** ReqUpd: the body ID of an update must equal the id in the path (docs/http-and-xml.md). */
export function assertBodyId(pathId: string | number, bodyId: string | number | null | undefined): void {
  if (bodyId === undefined || bodyId === null) throw new ValidationError([{ field: 'ID', message: 'ID is required on update' }]);
  if (String(bodyId).toLowerCase() !== String(pathId).toLowerCase()) {
    throw new ValidationError([{ field: 'ID', message: `ID ${bodyId} does not match the id in the path (${pathId})` }]);
  }
}

/** A guid path parameter (`id` unless named): `@GuidParam() id: string`, `@GuidParam('siteid') siteId: string`. */
export const GuidParam = (name = 'id'): ParameterDecorator => Param(name, GuidPipe);

/** An int32 path parameter (`id` unless named): `@IntParam() id: number`. */
export const IntParam = (name = 'id'): ParameterDecorator => Param(name, IntIdPipe);
