import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/**
 * An OpenID issuer an attacker controls (a site administrator registers it): it serves a discovery
 * document and a key set on 127.0.0.1 and signs whatever claims the test asks for — an `iat` a year
 * ahead, any audience, any user claim. It counts the requests it gets, so a test can tell whether
 * the service fetched anything from it.
 */
export class ForgedIssuer {
  readonly requests: string[] = [];
  private constructor(
    private readonly server: Server,
    private readonly key: CryptoKey,
    readonly kid: string,
  ) {}

  get issuer(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  static async start(): Promise<ForgedIssuer> {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'forged-1', alg: 'RS256', use: 'sig' };
    let self: ForgedIssuer | null = null;
    const server = createServer((req, res) => {
      self?.requests.push(req.url ?? '');
      const issuer = self!.issuer;
      if (req.url === '/.well-known/openid-configuration') return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
      if (req.url === '/jwks') return res.end(JSON.stringify({ keys: [jwk] }));
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new ForgedIssuer(server, privateKey, 'forged-1');
    return self;
  }

  /** A token of this issuer: `aud` and the claims as given; `iat` and `exp` in seconds from now (defaults 0 and +300). */
  sign(claims: Record<string, unknown>, opts: { aud: string | string[]; iatIn?: number; expIn?: number }): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: this.kid })
      .setIssuer(this.issuer)
      .setAudience(opts.aud)
      .setIssuedAt(now + (opts.iatIn ?? 0))
      .setExpirationTime(now + (opts.expIn ?? 300))
      .sign(this.key);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}
