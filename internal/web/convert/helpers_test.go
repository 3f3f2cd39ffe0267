package convert

import (
	"context"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
)

func withCancelled() converter.ConvertOptionFunc {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return converter.WithContext(ctx)
}
