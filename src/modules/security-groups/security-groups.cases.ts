import { creates, example, type FeatureCases, type KindCase, on, patches, type RouteCase, samePath, text, updates, usedUp } from '../../testing/cases.js';
import './dto/security-group.dto.js';

declare module '../../testing/cases.js' {
  interface WorldIds {
    /** A security group whose only member is the administrator (so no one else's rights change). */
    securitygroup: string;
  }
}

const securitygroup: KindCase = { path: 'securitygroups', body: () => example('CreateSecurityGroupDto', {}) };
/** The member is the administrator: no one else's rights change while the matrices run. */
const adminMember: RouteCase = { params: (w) => ({ id: w.ids.securitygroup, individualid: w.admin.individualId }) };

/** Security groups (docs/authorization.md). */
export default {
  kinds: { securitygroup },
  steps: [
    {
      makes: ['administrator in the group'],
      needs: ['securitygroup'],
      run: async (h, w) => void (await h.send(w, 'put', `securitygroups/${w.ids.securitygroup}/members/${w.admin.individualId}`, {})),
    },
  ],
  routes: {
    'GET /v4/securitygroups': {},
    'POST /v4/securitygroups': creates(securitygroup),
    'GET /v4/securitygroups/:id': on('securitygroup'),
    'PUT /v4/securitygroups/:id': updates('securitygroup', 'UpdateSecurityGroupDto'),
    'PATCH /v4/securitygroups/:id': patches('securitygroup', 'PatchSecurityGroupDto'),
    'DELETE /v4/securitygroups/:id': usedUp('securitygroup'),
    'PUT /v4/securitygroups/:id/members/:individualid': adminMember,
    'POST /v4/securitygroups/members/bulk': {
      body: (w) => ({ Items: [{ Op: 'upsert', Record: { SecurityGroupID: w.ids.securitygroup, IndividualID: w.admin.individualId } }] }),
    },
    'DELETE /v4/securitygroups/:id/members/:individualid': adminMember,
  },
  patches: [
    {
      route: 'PATCH /v4/securitygroups/:id',
      root: 'SecurityGroup',
      read: samePath,
      change: ['Description', 'Described in JSON', 'Described in XML'],
      clears: ['Description', 'To be cleared'],
      required: 'Name',
      concurrent: ['Name', text('Group'), 'Description', text('Description')],
    },
  ],
} satisfies FeatureCases;
