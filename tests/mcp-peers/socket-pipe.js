// Joins this process's stdio to a Unix socket, so a test can run an MCP server in its own
// process and still hand `inbox mcp proxy` a command to spawn: node socket-pipe.js PATH
const net = require("node:net");
const socket = net.connect(process.argv[2]);
process.stdin.pipe(socket);
socket.pipe(process.stdout);
socket.on("close", () => process.exit(0));
socket.on("error", (e) => {
  console.error(`socket-pipe: ${e.message}`);
  process.exit(1);
});
