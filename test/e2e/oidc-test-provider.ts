import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

/** A private signing key for the provider's JWKS. */
export async function signingKey(alg: 'RS256' | 'ES256', kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' };
}

/**
 * A real OpenID provider (oidc-provider, the certified implementation) on 127.0.0.1, issuing JWT
 * access tokens by the client-credentials grant: resource `api://pms` signed RS256, `api://pms-es`
 * signed ES256, any other resource as its own audience. The claims each token carries beyond the
 * standard ones come from `claims` (set by the test before it asks for a token), and `ttl` is the
 * lifetime in seconds. `restart` serves the same issuer with other keys (a key rotation).
 */
export class TestOidcProvider {
  claims: Record<string, unknown> = {};
  ttl = 300;
  private server: Server | null = null;
  /** The provider answering now; `restart` swaps it while the server keeps its port. */
  private handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;

  private constructor(
    readonly port: number,
    private keys: JWK[],
  ) {}

  get issuer(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(keys: JWK[], port = 0): Promise<TestOidcProvider> {
    const p = new TestOidcProvider(port, keys);
    await p.listen(port);
    p.serve();
    return p;
  }

  private async listen(port: number): Promise<void> {
    const server = createServer((req, res) => {
      if (this.handler) this.handler(req, res);
      else res.writeHead(503).end();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    (this as { port: number }).port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Builds the provider for the current keys and answers with it. */
  private serve(): void {
    const provider = new Provider(this.issuer, {
      clients: [{ client_id: 'pms-client', client_secret: 'pms-client-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [] }],
      jwks: { keys: this.keys },
      features: {
        clientCredentials: { enabled: true },
        devInteractions: { enabled: false },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => 'api://pms',
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => ({
            scope: 'pms',
            audience: resource,
            accessTokenFormat: 'jwt',
            accessTokenTTL: this.ttl,
            jwt: { sign: { alg: resource === 'api://pms-es' ? 'ES256' : 'RS256' } },
          }),
        },
      },
      extraTokenClaims: () => ({ ...this.claims }),
    });
    this.handler = provider.callback();
  }

  /** An access token for `claims` (and the resource as audience). */
  async token(claims: Record<string, unknown>, resource = 'api://pms'): Promise<string> {
    this.claims = claims;
    const res = await fetch(`${this.issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('pms-client:pms-client-secret').toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'pms', resource }).toString(),
    });
    const body = (await res.json()) as { access_token?: string };
    if (!res.ok || !body.access_token) throw new Error(`token request failed: ${res.status} ${JSON.stringify(body)}`);
    return body.access_token;
  }

  /**
   * Serves the same issuer with other keys. The listening socket stays (binding the same port again
   * could race another test process for it); open connections are closed so every client reconnects
   * to the new provider, as after a real restart.
   */
  async restart(keys: JWK[]): Promise<void> {
    this.keys = keys;
    this.serve();
    this.server?.closeAllConnections();
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    const closed = new Promise<void>((resolve) => s.close(() => resolve()));
    s.closeAllConnections();
    await closed;
  }
}
