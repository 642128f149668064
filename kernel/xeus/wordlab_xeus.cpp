// wordlab_xeus.cpp: `wordlab-xeus -f FILE`: xeus's protocol core and zmq server over wordlab's C language adapter.
// cli/xeus_main.c is the program's main, which gives it the interpreter settings of every front end.
// Every method turns the adapter's results (through the C core's shared helpers) into xeus's messages; xeus does
// busy/idle, execute_input, the execution count and stop_on_error on its own. History is the C core's: xeus 2.4's
// in-memory history lists every cell as line 1, with an output field jupyter_kernel_test's schema refuses.
// It builds against Debian 12's xeus 2.4 (which holds the zmq server) and Debian 13's xeus 5 with xeus-zmq 3 (the
// server, its context, and an execute_request that replies through a callback).
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include <xeus/xeus.hpp>       // XEUS_VERSION_MAJOR
#include <xeus/xhelper.hpp>     // extract_filename
#include <xeus/xinput.hpp>
#include <xeus/xinterpreter.hpp>
#include <xeus/xkernel.hpp>
#include <xeus/xkernel_configuration.hpp>
#if XEUS_VERSION_MAJOR >= 5
#include <xeus-zmq/xserver_zmq.hpp>
#include <xeus-zmq/xzmq_context.hpp>
#else
#include <xeus/xserver_zmq.hpp>
#include <zmq.hpp>
#endif

#include "kernel.h"
#include "kernel_core.h"

namespace nl = nlohmann;

namespace
{
    // A cJSON value (deleted here) as nlohmann JSON.
    nl::json to_json(cJSON* j)
    {
        char* text = j ? cJSON_PrintUnformatted(j) : nullptr;
        cJSON_Delete(j);
        nl::json out = text ? nl::json::parse(text) : nl::json::object();
        cJSON_free(text);
        return out;
    }

    cJSON* to_cjson(const nl::json& j)
    {
        return cJSON_Parse(j.dump().c_str());
    }

    // history_request through the C core's history (kept by execute_request_impl, with its execution count).
    class wordlab_history : public xeus::xhistory_manager
    {
    public:
        explicit wordlab_history(const wl_kernel& core) : m_core(core) {}

    private:
        nl::json query(nl::json content) const
        {
            cJSON* c = to_cjson(content);
            nl::json reply = to_json(wl_kernel_history_content(&m_core, c));
            cJSON_Delete(c);
            return reply;
        }

        void configure_impl() override {}
        // execute_request_impl keeps each cell with its count; xeus 2.4 would pass line 1 for every cell
        void store_inputs_impl(int, int, const std::string&, const std::string&) override {}

        nl::json get_tail_impl(int n, bool, bool output) const override
        {
            return query({{"hist_access_type", "tail"}, {"n", n}, {"output", output}});
        }

        nl::json get_range_impl(int session, int start, int stop, bool, bool output) const override
        {
            return query({{"hist_access_type", "range"}, {"session", session}, {"start", start}, {"stop", stop},
                          {"output", output}});
        }

        nl::json search_impl(const std::string& pattern, bool, bool output, int n, bool unique) const override
        {
            return query({{"hist_access_type", "search"}, {"pattern", pattern}, {"n", n}, {"output", output},
                          {"unique", unique}});
        }

        const wl_kernel& m_core;
    };

    class wordlab_interpreter : public xeus::xinterpreter
    {
    public:
        explicit wordlab_interpreter(wl_kernel& core) : m_core(core)
        {
            m_transport.ud = this;
            m_transport.name = "shell";
            m_transport.publish = publish;
            m_transport.input = input;
            m_chan.k = &m_core;
            m_chan.t = &m_transport;
            m_chan.is_shell = 1;
            xeus::register_interpreter(this);   // blocking_input_request finds it there
        }

    private:
        // The output layer's messages, as xeus publishes them (with its own parent header).
        static int publish(void* ud, const wl_request*, const char* type, cJSON* content)
        {
            auto* self = static_cast<wordlab_interpreter*>(ud);
            nl::json c = to_json(content);
            std::string t = type;
            if (t == "stream")
                self->publish_stream(c["name"], c["text"]);
            else if (t == "display_data")
                self->display_data(c["data"], c["metadata"], c.value("transient", nl::json::object()));
            else if (t == "update_display_data")
                self->update_display_data(c["data"], c["metadata"], c["transient"]);
            else if (t == "clear_output")
                self->clear_output(c["wait"]);
            return 0;
        }

        static int input(void*, const wl_request*, cJSON* content, int (*)(void*), void*, char* out, size_t cap)
        {
            nl::json c = to_json(content);
            std::string value = xeus::blocking_input_request(c["prompt"], c["password"]);
            if (value.size() >= cap) return 1;
            std::memcpy(out, value.c_str(), value.size() + 1);
            return 0;
        }

        void configure_impl() override {}

#if XEUS_VERSION_MAJOR >= 5
        void execute_request_impl(send_reply_callback cb, int execution_counter, const std::string& code,
                                  xeus::execute_request_config config, nl::json user_expressions) override
        {
            cb(execute(execution_counter, code, config.silent, config.store_history, user_expressions,
                       config.allow_stdin));
        }
#else
        nl::json execute_request_impl(int execution_counter, const std::string& code, bool silent, bool store_history,
                                      nl::json user_expressions, bool allow_stdin) override
        {
            return execute(execution_counter, code, silent, store_history, user_expressions, allow_stdin);
        }
#endif

        // One cell through the C core: its outputs published, its reply returned.
        nl::json execute(int execution_counter, const std::string& code, bool silent, bool store_history,
                         const nl::json& user_expressions, bool allow_stdin)
        {
            m_core.adapter.interrupt(m_core.adapter.self, 0);
            wl_request req{"execute_request", nullptr, nullptr, 0, nullptr};
            cJSON* exprs = to_cjson(user_expressions);
            wl_cell cell;
            wl_kernel_run(&m_chan, &req, code.c_str(), code.size(), silent, allow_stdin, exprs, &cell);
            cJSON_Delete(exprs);
            if (store_history) wl_kernel_history_add(&m_core, execution_counter, code.c_str(), cell.text);
            std::free(cell.text);
            if (cell.data) publish_execution_result(execution_counter, to_json(cell.data), nl::json::object());
            nl::json reply = to_json(cell.fields);   // payload and user_expressions, or the error's fields
            if (!cell.ok && !silent) publish_execution_error(reply["ename"], reply["evalue"], reply["traceback"]);
            reply["status"] = cell.ok ? "ok" : "error";
            return reply;
        }

        nl::json complete_request_impl(const std::string& code, int cursor_pos) override
        {
            return to_json(wl_kernel_complete_content(&m_core.adapter, code.c_str(), cursor_pos));
        }

        nl::json inspect_request_impl(const std::string& code, int cursor_pos, int) override
        {
            return to_json(wl_kernel_inspect_content(&m_core.adapter, code.c_str(), cursor_pos));
        }

        nl::json is_complete_request_impl(const std::string& code) override
        {
            return to_json(wl_kernel_is_complete_content(&m_core.adapter, code.c_str()));
        }

        nl::json kernel_info_request_impl() override
        {
            return to_json(wl_kernel_info_content(&m_core.adapter));
        }

        void shutdown_request_impl() override
        {
            m_core.adapter.interrupt(m_core.adapter.self, 1);
        }

        wl_kernel& m_core;
        wl_transport m_transport{};
        wl_chan m_chan{};
    };

    volatile sig_atomic_t interrupted;

    void on_sigint(int)
    {
        interrupted = 1;
    }

    // SIGINT is blocked in the threads this program starts (xeus's among them) but this one, which turns it into
    // the adapter's interrupt, so no zmq call of xeus's sees EINTR; threads that libraries started before main
    // (OpenBLAS's) run on_sigint instead.
    void watch_sigint(sigset_t set)
    {
        for (;;) {
            int sig = 0;
            if (sigwait(&set, &sig) == 0 && sig == SIGINT) interrupted = 1;
        }
    }
}

int wl_kernel_xeus_main(int argc, char** argv, const wl_interp_opts* opts)
{
    std::string file = xeus::extract_filename(argc, argv);
    if (file.empty()) {
        std::fprintf(stderr, "usage: wordlab-xeus -f CONNECTION_FILE\n");
        return 2;
    }
    struct sigaction sa = {};
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread(watch_sigint, set).detach();

    wl_interp* interp = wl_interp_new(opts);
    wl_kernel core{};
    core.adapter = wl_exec_adapter(interp, &interrupted);
    if (!interp || !core.adapter.self) {
        std::fprintf(stderr, "wordlab-xeus: cannot create the interpreter\n");
        return 1;
    }
    {
        xeus::xconfiguration config = xeus::load_configuration(file);
#if XEUS_VERSION_MAJOR >= 5
        auto context = xeus::make_zmq_context();
        auto server = xeus::make_xserver_default;
#else
        auto context = xeus::make_context<zmq::context_t>();
        auto server = xeus::make_xserver_zmq;
#endif
        xeus::xkernel kernel(config, xeus::get_user_name(), std::move(context),
                             std::make_unique<wordlab_interpreter>(core), server,
                             std::make_unique<wordlab_history>(core));
        kernel.start();
    }
    wl_kernel_history_free(&core);
    wl_exec_adapter_free(&core.adapter);
    wl_interp_free(interp);
    return 0;
}
