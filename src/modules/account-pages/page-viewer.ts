import { AccountsService } from '../accounts/accounts.service';
import { PageSession } from './page-session';
import { PageViewer } from './views/layout';

/** The pages' viewer: the signed-in user by name, or nobody; with the form token of this browser. */
export async function pageViewer(accounts: AccountsService, session: PageSession): Promise<PageViewer> {
  if (!session.user) return { csrf: session.csrf };
  const account = await accounts.requireUser(session.user.userId);
  return {
    csrf: session.csrf,
    user: {
      isStaff: session.user.isStaff,
      isAdmin: session.user.isAdmin,
      name: account.individual?.label ?? account.email ?? account.orcid ?? `user ${account.id}`,
    },
  };
}
