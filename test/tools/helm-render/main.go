// helm-render renders a Helm chart the way `helm template` does, offline:
// Go text/template with sprig plus Helm's own functions (include, tpl,
// required, toYaml, fromYaml, toJson, fromJson). No helm binary can be
// installed on the build machines; this uses the same engine pieces.
//
//	helm-render -chart DIR [-f values.yaml ...] [-release NAME] [-namespace NS] [-json] [-values]
//	helm-render -yaml-to-json < multi-document.yaml
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig" // Debian installs sprig v3 here (GOPATH mode)
	"gopkg.in/yaml.v3"
)

type valueFiles []string

func (v *valueFiles) String() string     { return strings.Join(*v, ",") }
func (v *valueFiles) Set(s string) error { *v = append(*v, s); return nil }

// Files is .Files: the chart's non-template files by path relative to the chart.
type Files map[string][]byte

// Get returns a file's content, or "" when the chart has no such file (as Helm does).
func (f Files) Get(name string) string { return string(f[name]) }

type rendered struct {
	Source string                 `json:"source"`
	Object map[string]interface{} `json:"object"`
}

func main() {
	var files valueFiles
	chartDir := flag.String("chart", "", "chart directory")
	release := flag.String("release", "release", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	asJSON := flag.Bool("json", false, "print a JSON array of {source, object} instead of YAML")
	printValues := flag.Bool("values", false, "print the merged values as JSON and exit")
	yamlToJSON := flag.Bool("yaml-to-json", false, "convert multi-document YAML on stdin to a JSON array")
	flag.Var(&files, "f", "values file (repeatable, later ones win)")
	flag.Parse()

	var err error
	switch {
	case *yamlToJSON:
		err = convertStdin()
	case *chartDir == "":
		err = errors.New("-chart is required")
	default:
		err = run(*chartDir, files, *release, *namespace, *asJSON, *printValues)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "helm-render: %v\n", err)
		os.Exit(1)
	}
}

func convertStdin() error {
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	docs, err := splitDocuments("stdin", string(input))
	if err != nil {
		return err
	}
	objects := make([]map[string]interface{}, 0, len(docs))
	for _, d := range docs {
		objects = append(objects, d.Object)
	}
	return json.NewEncoder(os.Stdout).Encode(objects)
}

func run(chartDir string, valueFiles []string, release, namespace string, asJSON, printValues bool) error {
	chartMeta, err := readYAMLFile(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return err
	}
	values, err := readYAMLFile(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		return err
	}
	for _, f := range valueFiles {
		override, err := readYAMLFile(f)
		if err != nil {
			return err
		}
		values = mergeValues(values, override)
	}
	if printValues {
		return json.NewEncoder(os.Stdout).Encode(values)
	}

	chartName, _ := chartMeta["name"].(string)
	chart := map[string]interface{}{
		"Name": chartName, "Version": chartMeta["version"], "AppVersion": chartMeta["appVersion"],
		"Description": chartMeta["description"], "Type": chartMeta["type"],
	}
	chartFiles, templates, err := readChartFiles(chartDir, chartName)
	if err != nil {
		return err
	}
	top := map[string]interface{}{
		"Values":       values,
		"Chart":        chart,
		"Release":      map[string]interface{}{"Name": release, "Namespace": namespace, "Service": "Helm", "IsInstall": true, "IsUpgrade": false, "Revision": 1},
		"Capabilities": map[string]interface{}{"KubeVersion": map[string]interface{}{"Version": "v1.30.0", "Major": "1", "Minor": "30"}},
		"Template":     map[string]interface{}{"BasePath": chartName + "/templates"},
		"Files":        chartFiles,
	}

	root := template.New("chart")
	includeDepth := 0
	funcs := sprig.TxtFuncMap()
	// Helm removes these: a chart must not read the environment of the machine that renders it.
	delete(funcs, "env")
	delete(funcs, "expandenv")
	funcs["include"] = func(name string, data interface{}) (string, error) {
		includeDepth++
		defer func() { includeDepth-- }()
		if includeDepth > 1000 {
			return "", fmt.Errorf("include of %q nested too deep", name)
		}
		var buf bytes.Buffer
		err := root.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		clone, err := root.Clone()
		if err != nil {
			return "", err
		}
		t, err := clone.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = t.Execute(&buf, data)
		return strings.ReplaceAll(buf.String(), "<no value>", ""), err
	}
	funcs["required"] = func(message string, value interface{}) (interface{}, error) {
		if value == nil {
			return nil, errors.New(message)
		}
		if s, ok := value.(string); ok && s == "" {
			return nil, errors.New(message)
		}
		return value, nil
	}
	funcs["toYaml"] = toYAML
	funcs["fromYaml"] = func(text string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := yaml.Unmarshal([]byte(text), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	funcs["toJson"] = func(v interface{}) string {
		out, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		return string(out)
	}
	funcs["fromJson"] = func(text string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	root.Funcs(funcs).Option("missingkey=zero")

	names := make([]string, 0, len(templates))
	for name, text := range templates {
		if _, err := root.New(name).Parse(text); err != nil {
			return err
		}
		names = append(names, name)
	}
	sort.Strings(names)

	var out []rendered
	for _, name := range names {
		base := filepath.Base(name)
		if strings.HasPrefix(base, "_") || base == "NOTES.txt" {
			continue
		}
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, name, top); err != nil {
			return err
		}
		docs, err := splitDocuments(name, strings.ReplaceAll(buf.String(), "<no value>", ""))
		if err != nil {
			return err
		}
		out = append(out, docs...)
	}
	if asJSON {
		return json.NewEncoder(os.Stdout).Encode(out)
	}
	for _, d := range out {
		text, err := toYAML(d.Object)
		if err != nil {
			return err
		}
		fmt.Printf("---\n# Source: %s\n%s\n", d.Source, text)
	}
	return nil
}

var separator = regexp.MustCompile(`(?m)^---\s*$`)

// splitDocuments parses every non-empty YAML document; each must be a mapping.
func splitDocuments(source, text string) ([]rendered, error) {
	var docs []rendered
	for i, part := range separator.Split(text, -1) {
		if strings.TrimSpace(stripComments(part)) == "" {
			continue
		}
		var obj map[string]interface{}
		if err := yaml.Unmarshal([]byte(part), &obj); err != nil {
			return nil, fmt.Errorf("%s: document %d is not valid YAML: %v\n%s", source, i, err, part)
		}
		if obj == nil {
			return nil, fmt.Errorf("%s: document %d is not a mapping", source, i)
		}
		docs = append(docs, rendered{Source: source, Object: obj})
	}
	return docs, nil
}

func stripComments(text string) string {
	var kept []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

func toYAML(v interface{}) (string, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

func readYAMLFile(path string) (map[string]interface{}, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]interface{}{}
	if err := yaml.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return m, nil
}

// mergeValues merges override into base as Helm does: maps key by key, anything else replaced.
func mergeValues(base, override map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range override {
		bm, bOK := out[k].(map[string]interface{})
		om, oOK := v.(map[string]interface{})
		if bOK && oOK {
			out[k] = mergeValues(bm, om)
		} else {
			out[k] = v
		}
	}
	return out
}

// readChartFiles returns .Files (every file outside templates/) and the templates by their Helm name.
func readChartFiles(chartDir, chartName string) (Files, map[string]string, error) {
	files := Files{}
	templates := map[string]string{}
	err := filepath.WalkDir(chartDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(chartDir, path)
		if err != nil {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasPrefix(rel, "templates"+string(filepath.Separator)) {
			templates[chartName+"/"+filepath.ToSlash(rel)] = string(raw)
		} else {
			files[filepath.ToSlash(rel)] = raw
		}
		return nil
	})
	return files, templates, err
}
