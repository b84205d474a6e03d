import { LOGOUT_WORDS, LogoutLinks, logoutPatternProblem } from './logout-links';

describe('LogoutLinks', () => {
  const links = new LogoutLinks(['members.test', 'shop.test'], ['^/account/end-session', '(?i)/bye$']);

  it('a logout word as a path segment (any case, an extension aside) is a logout link on a profile host', () => {
    for (const word of LOGOUT_WORDS) {
      expect(links.why(`http://members.test/${word}`)).toMatch(/path names a logout/);
      expect(links.why(`http://members.test:8080/account/${word.toUpperCase()}.php?next=/`)).toMatch(/path names a logout/);
    }
    expect(links.why('http://shop.test/user/Sign-Out/')).toMatch(/path names a logout/);
    expect(links.why('http://shop.test/a/log%2Dout')).toMatch(/path names a logout/);
  });

  it('a logout word as a query name or value is a logout link', () => {
    expect(links.why('http://members.test/index.php?action=logout')).toMatch(/query names a logout/);
    expect(links.why('http://members.test/wp-login.php?action=LogOff&_wpnonce=1')).toMatch(/query names a logout/);
    expect(links.why('http://members.test/?signout')).toMatch(/query names a logout/);
    expect(links.why('http://members.test/?sign_out=1')).toMatch(/query names a logout/);
  });

  it("the profile's logout_patterns are searched in path and query, as given", () => {
    expect(links.why('http://members.test/account/end-session')).toMatch(/logout_patterns/);
    expect(links.why('http://members.test/account/end-session?x=1')).toMatch(/logout_patterns/);
    expect(links.why('http://members.test/Account/end-session')).toBeNull();
    expect(links.why('http://members.test/see/BYE')).toMatch(/logout_patterns/);
  });

  it('other links, words only inside a segment, and links to other hosts are followed', () => {
    expect(links.why('http://members.test/members/p/1')).toBeNull();
    expect(links.why('http://members.test/blog/how-to-logout-safely')).toBeNull();
    expect(links.why('http://members.test/logouts')).toBeNull();
    expect(links.why('http://members.test/search?q=logout+help')).toBeNull();
    expect(links.why('http://outside.test/logout')).toBeNull();
    expect(links.why('http://outside.test/account/end-session')).toBeNull();
    expect(links.why('not a url')).toBeNull();
  });

  it('a logout pattern must be RE2 and at most 500 characters', () => {
    expect(logoutPatternProblem('^/account/end-session')).toBeNull();
    expect(logoutPatternProblem('(a')).toMatch(/RE2/);
    expect(logoutPatternProblem('(?=x)')).toMatch(/RE2/);
    expect(logoutPatternProblem('a'.repeat(501))).toMatch(/500/);
  });
});
