#include "long_task.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QPointer>
#include <QProcess>
#include <QProgressDialog>
#include <QStandardPaths>
#include <stdexcept>
#include <thread>

namespace nertz::gui {

QString runWithProgress(QWidget* parent, const QString& label, const std::function<void(const Progress&)>& job) {
    QProgressDialog dialog(label, QString(), 0, 0, parent);
    dialog.setObjectName("longTaskProgress");
    dialog.setWindowModality(Qt::WindowModal);
    dialog.setMinimumDuration(0);
    dialog.setAutoClose(false);
    dialog.setAutoReset(false);
    dialog.show();
    QPointer<QProgressDialog> guard(&dialog);
    QEventLoop loop;
    QString error;
    const Progress progress = [&guard](int done, int total, const QString& text) {
        QMetaObject::invokeMethod(
            guard.data(),
            [guard, done, total, text] {
                if (!guard) return;
                guard->setMaximum(total);
                guard->setValue(done);
                if (!text.isEmpty()) guard->setLabelText(text);
            },
            Qt::QueuedConnection);
    };
    std::thread worker([&] {
        try {
            job(progress);
        } catch (const std::exception& e) {
            error = QString::fromUtf8(e.what());
            if (error.isEmpty()) error = "failed";
        }
        QMetaObject::invokeMethod(&loop, &QEventLoop::quit, Qt::QueuedConnection);
    });
    loop.exec();
    worker.join();
    dialog.close();
    return error;
}

QString cliProgram() {
    const QString env = qEnvironmentVariable("NERTZ_CLI");
    if (!env.isEmpty() && QFileInfo(env).isExecutable()) return env;
    const QString here = QCoreApplication::applicationDirPath();
    for (const QString& p : {here + "/nertzref-cli", here + "/../cli/nertzref-cli"})
        if (QFileInfo(p).isExecutable()) return QDir::cleanPath(p);
    return QStandardPaths::findExecutable("nertzref-cli");
}

QString runCli(const QStringList& args) {
    const QString program = cliProgram();
    if (program.isEmpty()) throw std::runtime_error("nertzref-cli was not found beside nertzref or on PATH");
    QProcess p;
    p.start(program, args);
    if (!p.waitForStarted(10000)) throw std::runtime_error(("cannot start " + program).toStdString());
    p.waitForFinished(-1);
    const QString err = QString::fromUtf8(p.readAllStandardError()).trimmed();
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        throw std::runtime_error((err.isEmpty() ? QString("nertzref-cli failed (exit %1)").arg(p.exitCode()) : err).toStdString());
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

}  // namespace nertz::gui
