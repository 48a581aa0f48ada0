import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { TypeOrmModule } from '@nestjs/typeorm';
import Redis from 'ioredis';
import jwt from 'jsonwebtoken';
import { KeyObject } from 'node:crypto';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { AppConfig } from '../../core/config/app-config';
import { APP_CONFIG } from '../../core/config/app-config.token';
import { RedisThrottlerStorage } from '../../core/redis/redis-throttler.storage';
import { REDIS_CLIENT } from '../../core/redis/redis.module';
import { AccountsModule } from '../accounts/accounts.module';
import { emailBucket } from '../accounts/email-address';
import { AuthConnection } from './auth-connection.entity';
import { AuthConnectionRepository } from './auth-connection.repository';
import { AuthController } from './auth.controller';
import { AccessTokenStrategy } from './access-token.strategy';
import { BearerAuthGuard } from './bearer-auth.guard';
import { TOKEN_ALGORITHM, TOKEN_ISSUER, jwtSigningKey } from './jwt-signing-key';
import { ConnectionService } from './connection.service';
import { OrcidSignInService } from './orcid-sign-in.service';
import { SessionsController } from './sessions.controller';
import { TokenPair } from './token-pair.entity';
import { TokenPairRepository } from './token-pair.repository';
import { TokenService } from './token.service';

const MINUTE_MS = 60_000;

/**
 * Which account an attempt is against: the email of a login (by emailBucket, so every spelling that
 * could sign in to one account counts against it), the verified subject of a refresh token. A
 * forged or unreadable token counts against the caller's IP instead.
 */
function accountTracker(key: KeyObject) {
  return (req: Record<string, unknown>): string => {
    const body = (req.body ?? {}) as { email?: unknown; refresh?: unknown };
    if (typeof body.email === 'string') return `email:${emailBucket(body.email)}`;
    if (typeof body.refresh === 'string') {
      try {
        const claims = jwt.verify(body.refresh, key, { algorithms: [TOKEN_ALGORITHM], ignoreExpiration: true });
        if (typeof claims !== 'string' && claims.sub) return `user:${claims.sub}`;
      } catch {
        // fall through to the IP
      }
    }
    return `ip:${typeof req.ip === 'string' ? req.ip : 'unknown'}`;
  };
}

@Module({
  imports: [
    TypeOrmModule.forFeature([TokenPair, AuthConnection]),
    AccountsModule,
    PassportModule,
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        secret: jwtSigningKey(config.auth.jwtSecret),
        signOptions: { algorithm: TOKEN_ALGORITHM, issuer: TOKEN_ISSUER },
        verifyOptions: { algorithms: [TOKEN_ALGORITHM], issuer: TOKEN_ISSUER },
      }),
    }),
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG, REDIS_CLIENT],
      useFactory: (config: AppConfig, redis: Redis) => ({
        throttlers: [
          { name: 'ip', ttl: MINUTE_MS, limit: config.auth.rateLimitPerIp },
          {
            name: 'account',
            ttl: MINUTE_MS,
            limit: config.auth.rateLimitPerAccount,
            getTracker: accountTracker(jwtSigningKey(config.auth.jwtSecret)),
          },
        ],
        storage: new RedisThrottlerStorage(redis),
      }),
    }),
  ],
  controllers: [AuthController, SessionsController],
  providers: [
    TokenService,
    TokenPairRepository,
    ConnectionService,
    OrcidSignInService,
    AuthConnectionRepository,
    AccessTokenStrategy,
    { provide: APP_GUARD, useClass: BearerAuthGuard },
  ],
  exports: [TokenService, ConnectionService, OrcidSignInService],
})
export class AuthModule {}
