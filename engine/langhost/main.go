// Command pulumi-language-python runs Pulumi programs and policy packs written in Python.
//
// Pulumi publishes its own Python language host as the Go module
// github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3, which has no tags; the module
// proxy this project builds from refuses every version of it (403, "This module version is not
// available"). This host is tunifolk's own, written against the same sdk/v3 packages that Pulumi's
// uses (the LanguageRuntime gRPC service, the pip toolchain, the plugin output streams), so that
// `pulumi preview|up|refresh|destroy` and `pulumi preview --policy-pack policy` work as users type
// them. It covers what a Python program and a Python policy pack need; it does not create
// projects, install dependencies (`make install` does) or generate code, and it runs only the pip
// toolchain with no typechecker: any other runtime option in Pulumi.yaml is refused by name.
//
// How it runs things, as Pulumi's host does:
//   - Run: the toolchain's python (the `virtualenv` runtime option, relative to Pulumi.yaml) runs
//     `pulumi-language-python-exec`, the sdk/v3 script that sits next to this binary, with the
//     monitor and engine addresses as flags and the stack config in PULUMI_CONFIG.
//   - RunPlugin: the same python runs the plugin directory (a policy pack's __main__.py) with the
//     engine's arguments, and its output streams back to the engine.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// userActionableExit is the exit code the exec script uses after printing a message meant for the
// user (a Python error it has already shown): the engine then shows no second error.
const userActionableExit = 32

func main() {
	// The engine passes logging and tracing flags before the engine address. glog (through the
	// SDK) defines -logtostderr and -v; accept the others and ignore them.
	for name, usage := range map[string]string{"logflow": "flow logging to children", "tracing": "tracing endpoint"} {
		if flag.Lookup(name) == nil {
			flag.String(name, "", usage+" (ignored)")
		}
	}
	// -version lets a caller (the test suite's report header) say which host it runs without an engine.
	showVersion := flag.Bool("version", false, "print this host's version and exit")
	flag.Parse()
	if *showVersion {
		fmt.Println(version.Version)
		return
	}

	self, err := os.Executable()
	if err != nil {
		fail("cannot locate this executable: %v", err)
	}
	host := &languageHost{
		execScript: filepath.Join(filepath.Dir(self), "pulumi-language-python-exec"),
		engine:     flag.Arg(0),
	}
	if _, err := os.Stat(host.execScript); err != nil {
		fail("missing executor %s: run `make engine`", host.execScript)
	}

	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host)
			return nil
		},
		Options: rpcutil.OpenTracingServerInterceptorOptions(nil),
	})
	if err != nil {
		fail("could not start the language host: %v", err)
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fail("the language host stopped: %v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pulumi-language-python: "+format+"\n", args...)
	os.Exit(1)
}

type languageHost struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	execScript string
	engine     string
}

// supported is what this host does with Pulumi.yaml's runtime options, said in every refusal.
const supported = "this host supports only `virtualenv: <dir>` and `toolchain: pip`"

// python resolves the pip toolchain for a program: its virtualenv option is relative to the root.
//
// Pulumi's own host also runs poetry and uv projects and a typechecker (mypy, pyright) before the
// program; this one does none of that. An option it would ignore is refused, naming the option,
// rather than running the program as if it had been honoured.
func python(info *pulumirpc.ProgramInfo) (toolchain.Toolchain, error) {
	if info == nil {
		return nil, errors.New("the engine sent no program info")
	}
	options := info.GetOptions().AsMap()
	names := make([]string, 0, len(options))
	for name := range options {
		names = append(names, name)
	}
	sort.Strings(names)
	var virtualenv string
	for _, name := range names {
		value := options[name]
		switch s, isString := value.(string); {
		case name == "virtualenv" && isString:
			virtualenv = s
		case name == "toolchain" && s == "pip":
		default:
			return nil, fmt.Errorf("runtime option `%s: %v` is not supported: %s", name, value, supported)
		}
	}
	return toolchain.ResolveToolchain(toolchain.PythonOptions{
		Root:       info.GetRootDirectory(),
		ProgramDir: info.GetProgramDirectory(),
		Virtualenv: virtualenv,
		Toolchain:  toolchain.Pip,
	})
}

func (h *languageHost) Handshake(
	_ context.Context, req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	if req.GetEngineAddress() != "" {
		h.engine = req.GetEngineAddress()
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *languageHost) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
}

// GetRequiredPlugins and GetRequiredPackages answer "none": the project's resource plugins are
// found on PATH (the engine's directory and the stand-ins), and nothing is ever downloaded.
func (h *languageHost) GetRequiredPlugins(
	context.Context, *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

func (h *languageHost) GetRequiredPackages(
	context.Context, *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

func (h *languageHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	tc, err := python(req.GetInfo())
	if err != nil {
		return nil, err
	}
	if err := tc.ValidateVenv(ctx); err != nil {
		return &pulumirpc.RunResponse{Error: err.Error() + " (run `make install`)"}, nil
	}
	entry := req.GetInfo().GetEntryPoint()
	if entry == "" {
		entry = "."
	}
	args := []string{"-u", h.execScript}
	flags := [][2]string{
		{"monitor", req.GetMonitorAddress()},
		{"engine", h.engine},
		{"project", req.GetProject()},
		{"stack", req.GetStack()},
		{"pwd", req.GetPwd()},
		{"dry_run", strconv.FormatBool(req.GetDryRun())},
		{"parallel", strconv.Itoa(int(req.GetParallel()))},
		{"organization", req.GetOrganization()},
		{"root_directory", req.GetInfo().GetRootDirectory()},
	}
	for _, f := range flags {
		if f[1] != "" {
			args = append(args, "--"+f[0], f[1])
		}
	}
	args = append(args, filepath.Join(req.GetInfo().GetProgramDirectory(), entry))
	args = append(args, req.GetArgs()...)

	cmd, err := tc.Command(ctx, args...)
	if err != nil {
		return nil, err
	}
	// A stack without config arrives as nil, which JSON writes as null and the SDK cannot iterate:
	// send an empty object and list instead.
	stackConfig, secretKeyList := req.GetConfig(), req.GetConfigSecretKeys()
	if stackConfig == nil {
		stackConfig = map[string]string{}
	}
	if secretKeyList == nil {
		secretKeyList = []string{}
	}
	config, err := json.Marshal(stackConfig)
	if err != nil {
		return nil, fmt.Errorf("serializing the stack config: %w", err)
	}
	secretKeys, err := json.Marshal(secretKeyList)
	if err != nil {
		return nil, fmt.Errorf("serializing the secret config keys: %w", err)
	}
	cmd.Env = append(cmd.Env, "PULUMI_CONFIG="+string(config), "PULUMI_CONFIG_SECRET_KEYS="+string(secretKeys))
	cmd.Dir = req.GetPwd()
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return runResponse(cmd.Run()), nil
}

// runResponse turns the program's exit into the engine's answer: a program that already showed
// its error to the user asks the engine to bail quietly.
func runResponse(err error) *pulumirpc.RunResponse {
	if err == nil {
		return &pulumirpc.RunResponse{}
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if status, ok := exit.Sys().(syscall.WaitStatus); ok {
			if status.ExitStatus() == userActionableExit {
				return &pulumirpc.RunResponse{Bail: true}
			}
			return &pulumirpc.RunResponse{
				Error: fmt.Sprintf("Program exited with non-zero exit code: %d", status.ExitStatus()),
			}
		}
	}
	return &pulumirpc.RunResponse{Error: fmt.Sprintf("Problem executing program: %v", err)}
}

func (h *languageHost) RunPlugin(
	req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer,
) error {
	tc, err := python(req.GetInfo())
	if err != nil {
		return err
	}
	if err := tc.ValidateVenv(server.Context()); err != nil {
		return fmt.Errorf("%w (set runtime.options.virtualenv in the plugin's yaml)", err)
	}
	args := append([]string{"-u", req.GetInfo().GetProgramDirectory()}, req.GetArgs()...)
	cmd, err := tc.Command(server.Context(), args...)
	if err != nil {
		return err
	}
	closer, stdout, stderr, err := rpcutil.MakeRunPluginStreams(server, false)
	if err != nil {
		return err
	}
	defer closer.Close()
	cmd.Dir = req.GetPwd()
	cmd.Env = append(cmd.Env, req.GetEnv()...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return server.Send(&pulumirpc.RunPluginResponse{
				Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: int32(exit.ExitCode())},
			})
		}
		return err
	}
	return closer.Close()
}

func (h *languageHost) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	tc, err := python(req.GetInfo())
	if err != nil {
		return err
	}
	if err := tc.ValidateVenv(server.Context()); err != nil {
		return fmt.Errorf("%w: run `make install` in the project", err)
	}
	return nil // the venv exists; `make install` keeps it in step with the pinned requirements
}

func (h *languageHost) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	tc, err := python(req.GetInfo())
	if err != nil {
		return nil, err
	}
	info, err := tc.About(ctx)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.AboutResponse{
		Executable: info.PythonExecutable,
		Version:    info.PythonVersion.String(),
		Metadata:   map[string]string{"host": "tunifolk engine/langhost"},
	}, nil
}

func (h *languageHost) GetProgramDependencies(
	ctx context.Context, req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	tc, err := python(req.GetInfo())
	if err != nil {
		return nil, err
	}
	packages, err := tc.ListPackages(ctx, req.GetTransitiveDependencies())
	if err != nil {
		return nil, err
	}
	deps := make([]*pulumirpc.DependencyInfo, 0, len(packages))
	for _, p := range packages {
		deps = append(deps, &pulumirpc.DependencyInfo{Name: p.Name, Version: p.Version})
	}
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: deps}, nil
}

func (h *languageHost) RuntimeOptionsPrompts(
	context.Context, *pulumirpc.RuntimeOptionsRequest,
) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}
