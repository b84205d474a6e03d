import 'reflect-metadata';
import { getMetadataStorage, IsOptional, IsString, Length, Matches, validate } from 'class-validator';
import { describeDto } from './dto-metadata';
import { stackedDecorators } from './stacked-decorators';

const NameRules = () => stackedDecorators(IsOptional(), IsString(), Length(2, 5), Matches(/^[a-z]+$/));

class Stacked {
  @IsOptional()
  @IsString()
  @Length(2, 5)
  @Matches(/^[a-z]+$/)
  name?: string;
}

class Grouped {
  @NameRules()
  name?: string;
}

describe('stackedDecorators', () => {
  it('applies the last decorator first, as stacked decorators are', () => {
    const order: string[] = [];
    const mark =
      (label: string): PropertyDecorator =>
      () =>
        void order.push(label);
    class Target {
      @stackedDecorators(mark('a'), mark('b'), mark('c'))
      field?: string;
    }
    expect(new Target()).toBeInstanceOf(Target);
    expect(order).toEqual(['c', 'b', 'a']);
  });

  it('registers the rules of a group in the order of their stacked form', () => {
    const rules = (cls: new () => object) =>
      describeDto(cls)
        .get('name')
        ?.rules.map((r) => r.name);
    expect(rules(Grouped)).toEqual(rules(Stacked));
    const names = (cls: new () => object) =>
      getMetadataStorage()
        .getTargetValidationMetadatas(cls, '', true, false)
        .map((m) => m.name ?? m.type);
    expect(names(Grouped)).toEqual(names(Stacked));
  });

  it('answers a value that breaks several rules with the same messages in the same order', async () => {
    const messages = async (cls: new () => object) => {
      const instance = Object.assign(new cls(), { name: 'ABCDEFG' });
      return Object.values((await validate(instance))[0].constraints ?? {});
    };
    expect(await messages(Grouped)).toEqual(await messages(Stacked));
    expect(await messages(Grouped)).toHaveLength(2);
  });
});
