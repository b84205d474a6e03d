import 'reflect-metadata';
import { validate } from 'class-validator';
import { describeDto } from './dto-metadata';
import { OptionalHttpUrlProperty } from './http-url.property';

class Target {
  @OptionalHttpUrlProperty({ example: 'https://shop.example/', description: 'A seed.' })
  url?: string;
}

const errors = async (url: unknown) => {
  const [error] = await validate(Object.assign(new Target(), { url }));
  return error ? Object.keys(error.constraints ?? {}) : [];
};

describe('OptionalHttpUrlProperty', () => {
  it('takes an absent URL or an absolute http(s) one', async () => {
    expect(await errors(undefined)).toEqual([]);
    expect(await errors('https://shop.example/p/1')).toEqual([]);
  });

  it('refuses what is not a string, empty, too long or not http(s), in the rule order of the stacked form', async () => {
    expect(await errors(42)).toEqual(['isHttpUrl', 'isLength', 'isString']);
    expect(await errors('')).toEqual(['isHttpUrl', 'isLength']);
    expect(await errors(`https://shop.example/${'a'.repeat(2048)}`)).toEqual(['isHttpUrl', 'isLength']);
    expect(await errors('ftp://shop.example/')).toEqual(['isHttpUrl']);
  });

  it('is documented as the options say, optional', () => {
    const property = describeDto(Target).get('url');
    expect(property).toMatchObject({ optional: true, nullable: false });
    expect(property?.rules.map((r) => r.name)).toEqual(['isHttpUrl', 'isLength', 'isString']);
    expect(Reflect.getMetadata('swagger/apiModelProperties', Target.prototype, 'url')).toMatchObject({
      required: false,
      example: 'https://shop.example/',
      description: 'A seed.',
    });
  });
});
