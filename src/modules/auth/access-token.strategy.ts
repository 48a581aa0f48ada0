import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { TOKEN_ALGORITHM, TOKEN_ISSUER, jwtSigningKey } from './jwt-signing-key';
import { AccessClaims } from './token.service';

export const ACCESS_TOKEN_STRATEGY = 'access-token';

/**
 * Bearer access tokens through passport-jwt: the signature (HS256 only, with the key imported
 * once) and issuer are checked by jsonwebtoken, and the verified claims become `request.user`
 * for BearerAuthGuard, which checks expiry against the service clock and the token pair's state in
 * the database (TokenService.authenticateClaims). The strategy holds no database handle on purpose:
 * passport keeps strategies in one process-wide registry, shared by every Nest application a
 * process creates (tests, the CLI), so the per-application checks stay in the guard.
 */
@Injectable()
export class AccessTokenStrategy extends PassportStrategy(Strategy, ACCESS_TOKEN_STRATEGY) {
  constructor(@InjectAppConfig() config: AppConfig) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // passport-jwt hands the key to jsonwebtoken, which takes a KeyObject as it is.
      secretOrKey: jwtSigningKey(config.auth.jwtSecret) as unknown as Buffer,
      algorithms: [TOKEN_ALGORITHM],
      issuer: TOKEN_ISSUER,
      // Times are checked in validate() against the service clock (tests move it).
      ignoreExpiration: true,
      jsonWebTokenOptions: { ignoreNotBefore: true },
    });
  }

  validate(claims: AccessClaims): AccessClaims {
    return claims;
  }
}
