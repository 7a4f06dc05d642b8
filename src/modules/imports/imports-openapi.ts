import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { ContributesToDocument, type DocumentContribution } from '../../http/pipeline/document-contributor.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the document's open shape

/**
 * What the document says of imports beside the generic operations (docs/imports.md): the POST
 * answers 202 Accepted (the job is processed after the answer) and takes the file as its body in
 * each media type; the failed rows are also answered as CSV. The list of jobs (`GET /v4/imports`) is
 * a queried list as every other: its parameters, fields and export media types are the generic
 * ones (ListRoute, queryNotes), so nothing of it is completed here.
 */
@Injectable()
@ContributesToDocument()
export class ImportsOpenApi implements DocumentContribution {
  complete(document: OpenAPIObject): void {
    const post = (document.paths['/v4/imports'] as Json | undefined)?.post as Json | undefined;
    if (post?.responses?.['200']) {
      const { '200': accepted, ...rest } = post.responses as Json;
      post.responses = { '202': { ...accepted, description: 'Accepted: the job, queued (its file stored and checked); Location names it.' }, ...rest };
      accepted.headers = { ...accepted.headers, Location: { description: 'The job’s path: /v4/imports/{id}.', schema: { type: 'string' } } };
    }
    if (post) {
      const shared = (document.components?.responses ?? {}) as Json;
      const problem = (name: string, description: string) => ({ ...shared[name], description });
      post.responses['400'] ??= problem(
        'InvalidBody',
        'The query (kind, mode) or the file cannot be read: its header, too many columns, a row too wide, a syntax error, not UTF-8 (validation-failed, malformed-file, malformed-body).',
      );
      post.responses['409'] ??= problem('Conflict', 'The site has an import queued or running (import-active).');
      post.responses['413'] = problem(
        'PayloadTooLarge',
        'The file is larger than IMPORT_MAX_BYTES (256 MiB by default), from its Content-Length or as it is read (payload-too-large).',
      );
      post.responses['415'] = problem(
        'UnsupportedMediaType',
        'The Content-Type is no file an import reads, or a text file declares another charset than UTF-8 (unsupported-media-type).',
      );
      const text = { type: 'string', description: 'The file.' };
      const csv =
        'ExternalID,FirstName,LastName,UserName,Email,UserEmail,PrimaryOrganizationID,PrimaryTitle,PrimaryReportsTo,ExternalRefs.PrimaryReportsTo\r\n' +
        'HR-1000,Grace,Hopper,grace.hopper,grace@example.com,grace@example.com,00000000-0000-0000-0000-000000000000,Head of Sales,,\r\n' +
        'HR-1001,Jane,Doe,jane.doe,jane@example.com,jane@example.com,00000000-0000-0000-0000-000000000000,Account Executive,,HR-1000\r\n';
      const person = (ext: string, first: string, last: string, title: string, manager: string | null) => ({
        ExternalID: ext,
        FirstName: first,
        LastName: last,
        UserName: `${first}.${last}`.toLowerCase(),
        Email: `${first.toLowerCase()}@example.com`,
        UserEmail: `${first.toLowerCase()}@example.com`,
        PrimaryOrganizationID: '00000000-0000-0000-0000-000000000000',
        PrimaryTitle: title,
        PrimaryReportsTo: null,
        ...(manager ? { ExternalRefs: { PrimaryReportsTo: manager } } : {}),
      });
      const records = [person('HR-1001', 'Jane', 'Doe', 'Account Executive', 'HR-1000'), person('HR-1000', 'Grace', 'Hopper', 'Head of Sales', null)];
      post.requestBody = {
        required: true,
        description:
          'The organization 00000000-0000-0000-0000-000000000000 of the examples stands for one of your site. The file: CSV with a header row (an empty cell is null, a column left out is absent; ExternalRefs.<Field> columns name references by ExternalID), the first sheet of an XLSX workbook, NDJSON, a JSON array, or an XML ArrayOf… document (docs/imports.md).',
        content: {
          'text/csv': { schema: text, example: csv },
          'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': {
            schema: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The XLSX file.' },
          },
          'application/x-ndjson': { schema: text, example: records.map((r) => `${JSON.stringify(r)}\n`).join('') },
          'application/json': {
            schema: { type: 'array', items: { type: 'object' }, description: 'The records, as the collection’s create or update takes them.' },
            example: records,
          },
          'application/xml': {
            schema: text,
            example:
              '<ArrayOfIndividual xmlns="urn:pms:v4"><Individual><Email>jane@example.com</Email><ExternalID>HR-1001</ExternalID><FirstName>Jane</FirstName><LastName>Doe</LastName>' +
              '<PrimaryOrganizationID>00000000-0000-0000-0000-000000000000</PrimaryOrganizationID><PrimaryReportsTo/>' +
              '<PrimaryTitle>Account Executive</PrimaryTitle><UserEmail>jane@example.com</UserEmail><UserName>jane.doe</UserName></Individual></ArrayOfIndividual>',
          },
        },
      };
    }
    const errors = (document.paths['/v4/imports/{id}/errors'] as Json | undefined)?.get as Json | undefined;
    const ok = errors?.responses?.['200'] as Json | undefined;
    if (ok?.content) {
      ok.content['text/csv'] = {
        schema: { type: 'string', description: 'RFC 4180 CSV: Line, Status, ExternalID, Type, Detail, Errors (field: message; …), a header row first.' },
      };
    }
  }
}
