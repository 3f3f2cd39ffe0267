package daemon

import (
	"context"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// EnvFor makes the environment initialize makes of p, on a server that
// serves nobody; release closes its stores.
func EnvFor(p protocol.InitializeParams) (env *tool.Env, release func(), err error) {
	s := newServer(context.Background(), Options{})
	env, err = s.newEnv(p)
	return env, func() { s.closeServices(); s.cancelAll() }, err
}
