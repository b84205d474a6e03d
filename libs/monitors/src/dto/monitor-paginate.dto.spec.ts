import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { CreateMonitorDto, UpdateMonitorDto } from './monitor.dto';

/** The failing paths of a body, as the validation pipe names them (`paginate.max_pages`). */
function failing(cls: typeof CreateMonitorDto | typeof UpdateMonitorDto, body: object): string[] {
  const paths = (errors: ValidationError[], at: string): string[] =>
    errors.flatMap((e) => {
      const path = at ? `${at}.${e.property}` : e.property;
      return e.children?.length ? paths(e.children, path) : [path];
    });
  return paths(validateSync(plainToInstance(cls, body), { whitelist: true, forbidNonWhitelisted: true }), '');
}

const monitor = { name: 'paged', url: 'https://shop.example/', schedule: { every: '1h' } };

describe('a monitor\'s paginate: the DTO of extract, crawl and batch (docs/monitors.md "Paginated lists")', () => {
  it('takes a selector and max_pages 1 to 20, and is optional', () => {
    expect(failing(CreateMonitorDto, monitor)).toEqual([]);
    expect(failing(CreateMonitorDto, { ...monitor, paginate: { selector: 'li.next > a' } })).toEqual([]);
    expect(failing(CreateMonitorDto, { ...monitor, paginate: { selector: 'li.next > a', max_pages: 20 } })).toEqual([]);
  });

  it('refuses what a crawl refuses, at the field', () => {
    expect(failing(CreateMonitorDto, { ...monitor, paginate: { selector: 'a', max_pages: 21 } })).toEqual(['paginate.max_pages']);
    expect(failing(CreateMonitorDto, { ...monitor, paginate: { selector: 'a', max_pages: 0 } })).toEqual(['paginate.max_pages']);
    expect(failing(CreateMonitorDto, { ...monitor, paginate: { selector: '' } })).toEqual(['paginate.selector']);
    expect(failing(CreateMonitorDto, { ...monitor, paginate: { selector: 'li.next [[' } })).toEqual(['paginate.selector']);
    expect(failing(CreateMonitorDto, { ...monitor, paginate: { max_pages: 3 } })).toEqual(['paginate.selector']);
    expect(failing(CreateMonitorDto, { ...monitor, paginate: { selector: 'a', next: 'b' } })).toEqual(['paginate.next']);
    expect(failing(CreateMonitorDto, { ...monitor, paginate: 'li.next > a' })).toEqual(['paginate']);
  });

  it('an update may give null to remove it', () => {
    expect(failing(UpdateMonitorDto, { paginate: null })).toEqual([]);
    expect(failing(UpdateMonitorDto, { paginate: { selector: 'a', max_pages: 21 } })).toEqual(['paginate.max_pages']);
  });
});
