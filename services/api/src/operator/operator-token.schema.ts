import Joi from 'joi';

export const replaceOperatorTokenBody = Joi.object<{ token: string }, true>({
  token: Joi.string().min(32).max(512).pattern(/^[\x21-\x7e]+$/)
    .messages({ 'string.pattern.base': '{{#label}} must be printable ASCII without whitespace' })
    .required()
    .description('32 to 512 printable ASCII characters, no whitespace'),
}).label('OperatorTokenReplace');
