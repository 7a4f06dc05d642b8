import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiSchema } from '@nestjs/swagger';
import { declareExamples } from './examples.js';
import { ApiBodyTypes, WireInputOf } from './wire.js';

/**
 * The body an action takes without reading it (an undelete, a close, a ping: routes.ts
 * `PostAction`, `PutAction`): none is needed, but clients that send `{}` (or a record) with every
 * PUT and POST are answered as without one, so the document declares an optional body of any
 * members — it accepts what the service accepts (docs/openapi.md, "the request side").
 */
@ApiSchema({ name: 'IgnoredBody', description: 'Any members, or no body at all: taken and ignored.' })
@WireInputOf('Object')
export class IgnoredBody {}

declareExamples({ IgnoredBody: { body: {} } });

/** Declares the optional, ignored body of an action, in any of the four media types. */
export const IgnoresBody = (): MethodDecorator =>
  applyDecorators(
    ApiBodyTypes(),
    ApiBody({ type: IgnoredBody, required: false, description: 'None needed: a body sent (`{}`, a record) is taken and ignored.' }),
  );
