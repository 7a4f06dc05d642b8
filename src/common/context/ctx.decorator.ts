import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { CONTEXT_KEY, RequestContext } from './request-context.js';

/** Injects the RequestContext the guards built for this request. */
export const Ctx = createParamDecorator((_data: unknown, host: ExecutionContext): RequestContext => {
  const req = host.switchToHttp().getRequest<Record<string, unknown>>();
  const ctx = req[CONTEXT_KEY];
  if (!(ctx instanceof RequestContext)) throw new Error('RequestContext missing: is the AuthGuard registered?');
  return ctx;
});
