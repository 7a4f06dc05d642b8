import type { Type } from '@nestjs/common';

/**
 * A family of routes declared once (docs/adding-a-resource.md, "Route families"): routes that differ only by
 * a row of a table — a kind, the words of a path, what the service is told — are written as one
 * declaration, a function of the row, and each row becomes a handler of the controller's own: a
 * method of its own name (so the operation id stays `<Controller>_<name>`), its own path and
 * documentation, with the decorators, parameters and one service call a method written out in
 * the class body would have. No base class and no inherited route.
 */
export interface FamilyRoute {
  /** The handler's name. */
  name: string;
  /** The method decorators, top first, as they would stand above the method (`@ListRoute(…)`, `@ApiParam(…)`…). */
  decorators: readonly MethodDecorator[];
  /** The parameters in order: the decorator of each and its declared type (what `design:paramtypes` holds). */
  params: readonly (readonly [decorator: ParameterDecorator, type: unknown])[];
  /** The method itself: the one service call. */
  handle: (...args: never[]) => unknown;
}

/** A parameter decorator applied as TypeScript applies it to parameter `index` of a method. */
const param =
  (index: number, decorator: ParameterDecorator): MethodDecorator =>
  (target, key) =>
    decorator(target, key, index);

/**
 * Defines the routes on the controller, in the table's order. Nest registers a controller's routes
 * (and the OpenAPI document lists them) in the order of its methods, so `before` names the method
 * of the class body the family stands before: it and the methods after it are moved behind the
 * family, as if the family's methods were written out in that place. Without `before` the family
 * follows the class body's methods.
 */
export function defineRoutes(controller: Type, routes: readonly FamilyRoute[], { before }: { before?: string } = {}): void {
  const proto = controller.prototype as Record<string, unknown>;
  const names = Object.getOwnPropertyNames(proto);
  if (before !== undefined && !names.includes(before)) throw new Error(`${controller.name} has no method ${before}`);
  const after = before === undefined ? [] : names.slice(names.indexOf(before)).map((name) => [name, Object.getOwnPropertyDescriptor(proto, name)!] as const);
  for (const [name] of after) delete proto[name];
  for (const route of routes) {
    if (Object.hasOwn(proto, route.name)) throw new Error(`${controller.name}.${route.name} is declared twice`);
    // A method of the handler's name (Swagger reads a handler's metadata under its function's name).
    const handle = route.handle as (...args: unknown[]) => unknown;
    const methods = {
      [route.name](this: unknown, ...args: unknown[]) {
        return handle.apply(this, args);
      },
    };
    const descriptor = { configurable: true, writable: true, enumerable: false, value: methods[route.name] };
    Object.defineProperty(proto, route.name, descriptor);
    // The decorators a method written out in the class would carry, applied as TypeScript applies them (last first).
    const decorated = Reflect.decorate(
      [
        ...route.decorators,
        ...route.params.map(([decorator], index) => param(index, decorator)),
        Reflect.metadata('design:type', Function),
        Reflect.metadata(
          'design:paramtypes',
          route.params.map(([, type]) => type),
        ),
        Reflect.metadata('design:returntype', undefined),
      ],
      proto,
      route.name,
      descriptor,
    ) as PropertyDescriptor | undefined;
    Object.defineProperty(proto, route.name, decorated ?? descriptor);
  }
  for (const [name, descriptor] of after) Object.defineProperty(proto, name, descriptor);
}
