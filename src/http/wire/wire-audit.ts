import { WireField } from './wire.js';

/**
 * The members every audited record ends with, declared once: `@WireAudit()` appends Created,
 * CreatedBy, Updated, UpdatedBy (preceded by Deleted and DeletedByRef with `softDelete`) after
 * the class's own fields, so JSON keeps the documented order (audit last; docs/adding-a-resource.md) and XML sorts them as
 * usual. Extend AuditedWire / SoftDeletedWire for their types; map them with auditOf /
 * softDeleteOf.
 */
export function WireAudit(opts: { softDelete?: boolean } = {}): ClassDecorator {
  return (target) => {
    const proto = target.prototype as object;
    if (opts.softDelete) {
      WireField('bool', {
        access: 'RO',
        description: 'Soft-deleted: set by DELETE, cleared by PUT …/undelete. Lists show deleted records with deleted=1 or 2.',
      })(proto, 'Deleted');
      WireField('bool', { access: 'RO', description: 'Deleted by reference: taken down with the record that owns it, and restored with it.' })(
        proto,
        'DeletedByRef',
      );
    }
    WireField('date', { access: 'RO' })(proto, 'Created');
    WireField('guid', { access: 'RO', nullable: true, description: 'Individual id of the creator (null for records the service created itself).' })(
      proto,
      'CreatedBy',
    );
    WireField('date', { access: 'RO' })(proto, 'Updated');
    WireField('guid', { access: 'RO', nullable: true, description: 'Individual id of the last writer (null for records the service wrote itself).' })(
      proto,
      'UpdatedBy',
    );
  };
}

/** The types of the members @WireAudit() declares. */
export abstract class AuditedWire {
  Created: Date;
  CreatedBy: string | null;
  Updated: Date;
  UpdatedBy: string | null;
}

/** The types of the members @WireAudit({ softDelete: true }) declares. */
export abstract class SoftDeletedWire extends AuditedWire {
  Deleted: boolean;
  DeletedByRef: boolean;
}

interface AuditedRow {
  created: Date;
  createdBy: string | null;
  updated: Date;
  updatedBy: string | null;
}

export function auditOf(e: AuditedRow): AuditedWire {
  return { Created: e.created, CreatedBy: e.createdBy, Updated: e.updated, UpdatedBy: e.updatedBy };
}

export function softDeleteOf(e: AuditedRow & { deleted: boolean; deletedByRef: boolean }): SoftDeletedWire {
  return { Deleted: e.deleted, DeletedByRef: e.deletedByRef, ...auditOf(e) };
}
