export type { AuthProfileRecord, BrowserLoginRecipe, FormLoginRecipe, LoggedInCheck, LoginRecipe } from './auth-profile.types';
export { AuthProfileListResponse, AuthProfileResponse, CreateAuthProfileDto, UpdateAuthProfileDto } from './dto/auth-profile.dto';
export { AuthProfilesModule } from './auth-profiles.module';
export { AuthProfileEvents, type AuthProfileFailing } from './auth-profile-events';
export { AuthProfilesService, CREDENTIAL_MASK } from './auth-profiles.service';
export {
  AuthSessions,
  authFailed,
  MAX_LOGIN_FAILURES,
  RELOGINS_PER_PAGE,
  sessionProxyKey,
  type ActiveSession,
  type LoginAgent,
} from './auth-sessions.service';
export { browserLogin, scriptSteps, type LoginBrowser } from './browser-login';
export { formLogin, keepCookie, LoginFailed, type LoginHttp } from './form-login';
export { isLoginTarget, loggedOutReason, type SessionJudge } from './logged-in-check';
export { fetchLoggedIn, type SessionFetch } from './session-fetch';
export { LOGOUT_WORDS, LogoutLinks } from './logout-links';
