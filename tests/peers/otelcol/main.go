// Copyright The OpenTelemetry Authors (the collector this builds), batlehub (this file).
// SPDX-License-Identifier: Apache-2.0

// otelcol: the smallest OpenTelemetry Collector distribution the tests need as a peer: the
// OTLP receiver (OTLP/HTTP and OTLP/gRPC in), the debug exporter (what arrived, printed to the
// collector's log), configuration from a file or inline YAML. Nothing else: no processors,
// connectors or extensions. scripts/install-otelcol.sh builds it into
// /opt/batlehub/peers/otelcol-<release>/otelcol.
package main

import (
	"fmt"
	"os"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/confmap/provider/yamlprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

// version is the collector release the modules in go.mod are of; install-otelcol.sh checks it.
const version = "0.165.0"

func factories() (otelcol.Factories, error) {
	receivers, err := otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	exporters, err := otelcol.MakeFactoryMap[exporter.Factory](debugexporter.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	return otelcol.Factories{
		Receivers: receivers,
		Exporters: exporters,
		// The collector's own telemetry (its logs; its metrics and traces only when the
		// config asks for them): otelcol refuses to start without a telemetry factory.
		Telemetry: otelconftelemetry.NewFactory(),
	}, nil
}

func main() {
	info := component.BuildInfo{
		Command:     "otelcol",
		Description: "batlehub's test peer: OpenTelemetry Collector with otlp receiver and debug exporter",
		Version:     version,
	}
	settings := otelcol.CollectorSettings{
		BuildInfo: info,
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{
					fileprovider.NewFactory(),
					yamlprovider.NewFactory(),
				},
				// The scheme of a bare ${...} in a config. otelcol puts "env" there when it is
				// empty and then refuses to start without an env provider, which this
				// distribution leaves out: "yaml" makes ${x} the YAML value x, reads nothing.
				DefaultScheme: "yaml",
			},
		},
	}
	if err := otelcol.NewCommand(settings).Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "otelcol: %v\n", err)
		os.Exit(1)
	}
}
