# SPDX-License-Identifier: LGPL-2.1-or-later
# fish completion for tracectl(1), the twin of tracectl.bash and _tracectl:
# commands and options from the CLI's own --help (the option tables it parses
# with), session, channel and event names from the service through
# --json=short, with --no-ask-password so that completing never prompts for a
# password; after -H HOST, from HOST's service. fish filters the candidates by the typed prefix itself.

function __tracectl_query
    set -l host
    test -n "$__tracectl_host"; and set host -H $__tracectl_host
    $__tracectl_program $host --no-ask-password --json=short $argv 2>/dev/null
end

# The values of "KEY":"VALUE" in JSON text, one a line. Through cat: a
# builtin in a function does not read the function's piped input.
function __tracectl_json_values
    cat | string match -r -a -g -- "\"$argv[1]\":\"([^\"]*)\""
end

function __tracectl_sessions
    __tracectl_query list | __tracectl_json_values name
end

# A channel is the only object with a "domain" after its name.
function __tracectl_channels
    if test -n "$argv[1]"
        __tracectl_query list $argv[1]
    else
        __tracectl_query status
    end | string match -r -a -g -- '"name":"([^"]*)","domain"'
end

function __tracectl_events
    __tracectl_query list -u | __tracectl_json_values name | sort -u
end

function __tracectl_commands
    LC_ALL=C $__tracectl_program --help 2>/dev/null |
        sed -n '/^Commands:/,/^$/{/^  [a-z]/{s/^  \([a-z-]*\)  *\(.*\)/\1\t\2/;p;}}'
end

# The options of a command, --opt= for those that take a value.
function __tracectl_options
    LC_ALL=C $__tracectl_program $argv[1] --help 2>/dev/null |
        sed -n 's/^  *\(-[A-Za-z], \)\{0,1\}\(--[a-z][a-z-]*\)\(=\{0,1\}\).*/\2\3/p'
    echo --no-ask-password
end

function __tracectl_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -g __tracectl_program $words[1]
    set -g __tracectl_host
    set -l cmd
    set -l session
    set -l i 2
    while test $i -le (count $words)
        # -H HOST, a global option: before the command only.
        if test -z "$cmd"
            switch $words[$i]
                case -H --host
                    set i (math $i + 1)
                    set __tracectl_host $words[$i]
                    set i (math $i + 1)
                    continue
                case '--host=*'
                    set __tracectl_host (string replace -- --host= '' $words[$i])
                    set i (math $i + 1)
                    continue
            end
        end
        switch $words[$i]
            case -s --session
                set session $words[(math $i + 1)]
            case '--session=*'
                set session (string replace -- --session= '' $words[$i])
            case '-*'
            case '*'
                test -z "$cmd"; and set cmd $words[$i]
        end
        set i (math $i + 1)
    end

    if test -z "$cmd"
        if string match -q -- '-*' $cur
            printf '%s\n' --help --version --verbose --json --json=short --json=pretty \
                --no-ask-password -H --host=
        else if contains -- "$words[-1]" -H --host
            __fish_print_hostnames
        else
            __tracectl_commands
        end
        return
    end

    switch "$words[-1]"
        case -s --session
            __tracectl_sessions
            return
        case -c --channel
            __tracectl_channels $session
            return
        case -o --output -t --trace
            if test "$cmd" != view
                __fish_complete_path $cur
                return
            end
    end
    switch $cur
        case '--session=*'
            __tracectl_sessions | string replace -r '^' -- --session=
            return
        case '--channel=*'
            __tracectl_channels $session | string replace -r '^' -- --channel=
            return
        case '--json=*'
            printf '%s\n' --json=short --json=pretty
            return
        case '-*'
            __tracectl_options $cmd
            return
    end

    switch $cmd
        case start stop destroy set-session list rotate clear view export
            __tracectl_sessions
        case enable-event disable-event
            __tracectl_events
        case enable-channel disable-channel
            __tracectl_channels $session
        case snapshot
            printf '%s\n' record add-output list-output del-output
    end
end

complete -c tracectl -f -a '(__tracectl_complete)'
