package prober

import (
	"time"

	"github.com/prometheus/common/model"
)

func modelDuration(d time.Duration) model.Duration { return model.Duration(d) }
