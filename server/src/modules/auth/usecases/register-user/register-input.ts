import { z } from 'zod';
import { InvalidParamsError } from '#server/common/http/errors';
import { parseInput } from '#server/common/http/validation';
import { InvalidInputError, normaliseName, validateProfile } from '#server/modules/users/user-input';
import { jsonString } from '../../request-input';

/** The fields the server reads from a register body; `password2` is the console's business only. */
const registerBody = z.object({
  username: jsonString,
  password: jsonString,
  email: jsonString,
  verification_code: jsonString,
  aff_code: jsonString,
});

export type RegisterInput = z.infer<typeof registerBody>;

/**
 * Decodes a register body: a value of the wrong type is "无效的参数"; a broken field rule (`validateProfile`, shared
 * with admin create and self update) is "输入不合法 <detail>". Unlike new-api, the password is required
 * (it validated "min 8" only on a non-empty value path) and so is the username (it created nameless accounts).
 */
export function parseRegisterInput(body: unknown): RegisterInput {
  const decoded = parseInput(registerBody, body);
  // The name as stored and compared: a look-alike of a taken name is taken.
  const input = { ...decoded, username: normaliseName(decoded.username) };
  // Codes are 6 or 32 characters, invite codes 4: anything this long is not one and need not reach Redis.
  if (input.verification_code.length > 256 || input.aff_code.length > 256) throw new InvalidParamsError();
  if (!input.username) throw new InvalidInputError('用户名不能为空');
  if (!input.password) throw new InvalidInputError('密码长度必须在 8 到 20 个字符之间');
  validateProfile({ username: input.username, password: input.password, email: input.email });
  return input;
}
