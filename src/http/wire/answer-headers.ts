import { SetMetadata } from '@nestjs/common';

/**
 * Headers an answer carries beside its body, set per request by the service (the WireWriter
 * writes them before the body): `new WithHeaders(value, { 'Dashboard-Source': 'summaries' })`.
 * A route declares them with `@AnswerHeaders({ name: description })`, which the OpenAPI document
 * lists on its 200 answer.
 */
export class WithHeaders<T> {
  constructor(
    readonly value: T,
    readonly headers: Readonly<Record<string, string>>,
  ) {}
}

export const ANSWER_HEADERS = 'answer-headers';

/** The headers a route's 200 answer carries, by name, with their descriptions (OpenAPI). */
export type AnswerHeaderDocs = Readonly<Record<string, { description: string; format?: 'date-time'; enum?: readonly string[] }>>;

export const AnswerHeaders = (headers: AnswerHeaderDocs): MethodDecorator => SetMetadata(ANSWER_HEADERS, headers);
