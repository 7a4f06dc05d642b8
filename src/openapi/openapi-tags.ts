import type { ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { TAG_DESCRIPTION } from '../http/pipeline/routes.js';

/**
 * Declares every tag the operations use, in the order they first appear (Swagger UI's section
 * order), each with what it groups as its controller says it (`ApiController`'s `description`):
 * the top-level `tags` list, which Swagger UI shows as the section headings and linters want
 * declared (docs/openapi.md). A tag no controller describes is declared without a description,
 * which the document test (test/e2e/openapi.e2e-spec.ts) and the linters report.
 */
export function declareTags(document: OpenAPIObject, modules: ModulesContainer): void {
  const descriptions = tagDescriptions(modules);
  const names: string[] = [];
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item as Record<string, { tags?: string[] }>)) {
      for (const tag of op?.tags ?? []) if (!names.includes(tag)) names.push(tag);
    }
  }
  document.tags = names.map((name) => (descriptions.has(name) ? { name, description: descriptions.get(name)! } : { name }));
}

/** What each tag groups, from the controllers that describe it; two different descriptions of one tag are a mistake. */
function tagDescriptions(modules: ModulesContainer): Map<string, string> {
  const found = new Map<string, string>();
  for (const mod of modules.values()) {
    for (const wrapper of mod.controllers.values()) {
      const declared = wrapper.metatype
        ? (Reflect.getMetadata(TAG_DESCRIPTION, wrapper.metatype) as { tag: string; description: string } | undefined)
        : undefined;
      if (!declared) continue;
      const known = found.get(declared.tag);
      if (known !== undefined && known !== declared.description) throw new Error(`the tag ${declared.tag} is described twice, differently`);
      found.set(declared.tag, declared.description);
    }
  }
  return found;
}
