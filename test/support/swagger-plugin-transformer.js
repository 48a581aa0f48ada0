// Runs the @nestjs/swagger CLI plugin under ts-jest with the options nest-cli.json gives `nest build`,
// so the document built in tests is the document the built app serves.
const plugin = require('@nestjs/swagger/plugin');
const nestCli = require('../../nest-cli.json');

const options = nestCli.compilerOptions.plugins.find((p) => p.name === '@nestjs/swagger').options;

module.exports.name = 'nestjs-swagger-transformer';
module.exports.version = 1;
module.exports.factory = (compiler) => plugin.before(options, compiler.program);
